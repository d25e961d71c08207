"""The current stable ACP methods and capabilities, in raw JSON-RPC: ``session/delete``,
``additionalDirectories``, ``$/cancel_request``, ``logout``, what only the unstable schema has
(``fork``, ``usage``), and that ``initialize`` advertises exactly what is answered."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from core_support import FIXTURES, RawAgent

StartRaw = Callable[..., AbstractAsyncContextManager[RawAgent]]


STABLE: dict[str, Any] = {"fs": {"readTextFile": True, "writeTextFile": True}}
UNSTABLE: dict[str, Any] = {**STABLE, "_meta": {"unstable": True}}


async def init(agent: RawAgent, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities or STABLE})
    result: dict[str, Any] = reply["result"]
    return result


async def new(agent: RawAgent, msg_id: int, cwd: Path, extra: list[str] | None = None) -> str:
    params: dict[str, Any] = {"cwd": str(cwd), "mcpServers": []}
    if extra is not None:
        params["additionalDirectories"] = extra
    reply = await agent.request(msg_id, "session/new", params)
    session_id: str = reply["result"]["sessionId"]
    return session_id


async def listed(agent: RawAgent, msg_id: int, cwd: Path) -> dict[str, dict[str, Any]]:
    reply = await agent.request(msg_id, "session/list", {"cwd": str(cwd)})
    return {s["sessionId"]: s for s in reply["result"]["sessions"]}


async def test_protocol_current_stable_capabilities(start_raw: StartRaw) -> None:
    async with start_raw() as agent:
        caps = (await init(agent))["agentCapabilities"]
        sessions = caps["sessionCapabilities"]
        assert set(sessions) == {"list", "close", "resume", "additionalDirectories", "delete"}
        assert "fork" not in sessions  # only in the unstable schema
        assert "logout" not in (caps.get("auth") or {})  # the demo/scripted model has no key to forget
    async with start_raw() as agent:
        sessions = (await init(agent, UNSTABLE))["agentCapabilities"]["sessionCapabilities"]
        assert "fork" in sessions


async def test_protocol_current_delete(start_raw: StartRaw, tmp_path: Path) -> None:
    async with start_raw() as agent:
        await init(agent)
        keep, gone = await new(agent, 1, tmp_path), await new(agent, 2, tmp_path)
        reply = await agent.request(
            3, "session/prompt", {"sessionId": gone, "prompt": [{"type": "text", "text": "hi"}]}
        )
        assert reply["result"]["stopReason"] == "end_turn"
        assert set(await listed(agent, 4, tmp_path)) == {keep, gone}
        assert await agent.request(5, "session/delete", {"sessionId": gone}) == {
            "jsonrpc": "2.0",
            "id": 5,
            "result": {},
        }
        assert set(await listed(agent, 6, tmp_path)) == {keep}
        # The deleted session is gone for good: not live, not restorable.
        prompt = await agent.request(
            7, "session/prompt", {"sessionId": gone, "prompt": [{"type": "text", "text": "x"}]}
        )
        assert prompt["error"]["code"] == -32002
        resumed = await agent.request(8, "session/resume", {"sessionId": gone, "cwd": str(tmp_path)})
        assert resumed["error"]["code"] == -32002
        # Unknown ids: silently fine; bad params: -32602; the process keeps serving.
        assert (await agent.request(9, "session/delete", {"sessionId": "no-such-session"}))["result"] == {}
        assert (await agent.request(10, "session/delete", {}))["error"]["code"] == -32602
        assert set(await listed(agent, 11, tmp_path)) == {keep}


async def test_protocol_current_additional_directories(start_raw: StartRaw, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    async with start_raw() as agent:
        await init(agent)
        sid = await new(agent, 1, tmp_path, [str(extra)])
        assert (await listed(agent, 2, tmp_path))[sid]["additionalDirectories"] == [str(extra)]
        other = tmp_path / "other"
        other.mkdir()
        await agent.request(3, "session/close", {"sessionId": sid})
        resumed = await agent.request(
            4, "session/resume", {"sessionId": sid, "cwd": str(tmp_path), "additionalDirectories": [str(other)]}
        )
        assert "result" in resumed, resumed
        assert (await listed(agent, 5, tmp_path))[sid]["additionalDirectories"] == [str(other)]
        relative = await agent.request(
            6, "session/new", {"cwd": str(tmp_path), "mcpServers": [], "additionalDirectories": ["rel/dir"]}
        )
        assert relative["error"]["code"] == -32602


async def test_protocol_current_cancel_request_of_a_prompt(start_raw: StartRaw, tmp_path: Path) -> None:
    """``$/cancel_request`` naming a running prompt ends the turn: the prompt answers ``cancelled``."""
    async with start_raw() as agent:
        await init(agent)
        sid = await new(agent, 1, tmp_path)
        await agent.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/prompt",
                "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "slow 30"}]},
            }
        )
        while True:  # the slow tool has started
            message = await agent.recv()
            update = message.get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "tool_call_update" and update.get("status") == "in_progress":
                break
        await agent.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 2}})
        while True:
            message = await agent.recv(timeout=10)
            if message.get("id") == 2:
                break
        assert message["result"]["stopReason"] == "cancelled"
        # Unknown ids are ignored; the agent still serves.
        await agent.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 999}})
        assert "result" in await agent.request(3, "session/list", {})


async def test_protocol_current_cancel_request_of_another_request(start_raw: StartRaw, tmp_path: Path) -> None:
    """Any other in-flight request cancelled by id answers -32800 at once, and the agent goes on."""
    target = f"{FIXTURES / 'slow_target.py'}:agent"  # session/new waits for a 60 s import
    async with start_raw(target, subprocess=True) as agent:  # in process, the import's thread would be waited for
        await init(agent)
        await agent.send(
            {
                "jsonrpc": "2.0",
                "id": "new-1",
                "method": "session/new",
                "params": {"cwd": str(tmp_path), "mcpServers": []},
            }
        )
        await asyncio.sleep(0.5)
        await agent.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "new-1"}})
        reply = await agent.recv(timeout=10)
        assert reply["id"] == "new-1" and reply["error"]["code"] == -32800
        # Still serving (a request that does not wait for the slow import).
        assert (await agent.request(2, "authenticate", {"methodId": "none"}))["error"]["code"] == -32602


async def test_protocol_current_usage_only_in_the_unstable_schema(start_raw: StartRaw, tmp_path: Path) -> None:
    """The prompt response's ``usage`` is unstable: a stable client gets ``usage_update`` only."""
    for capabilities, has_usage in ((STABLE, False), (UNSTABLE, True)):
        async with start_raw("agent", testplug=["extras"]) as agent:
            await init(agent, capabilities)
            sid = await new(agent, 1, tmp_path)
            reply = await agent.request(
                2, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "echo hi"}]}
            )
            assert ("usage" in reply["result"]) is has_usage, reply


@pytest.mark.parametrize("capabilities", [STABLE, UNSTABLE], ids=["stable", "unstable"])
async def test_protocol_current_advertised_is_answered(
    start_raw: StartRaw, tmp_path: Path, capabilities: dict[str, Any]
) -> None:
    """What ``initialize`` advertises answers (not -32601); an optional method it does not advertise is -32601."""
    async with start_raw() as agent:
        caps = (await init(agent, capabilities))["agentCapabilities"]
        sessions = caps.get("sessionCapabilities") or {}
        sid = await new(agent, 1, tmp_path)
        calls: dict[str, tuple[str, dict[str, Any]]] = {
            "list": ("session/list", {}),
            "resume": ("session/resume", {"sessionId": sid, "cwd": str(tmp_path)}),
            "close": ("session/close", {"sessionId": sid}),
            "fork": ("session/fork", {"sessionId": sid, "cwd": str(tmp_path)}),
            "delete": ("session/delete", {"sessionId": sid}),
        }
        msg_id = 10
        for name, (method, params) in calls.items():
            msg_id += 1
            reply = await agent.request(msg_id, method, params)
            if name in sessions:
                assert "result" in reply, (name, reply)
        msg_id += 1
        logout = await agent.request(msg_id, "logout", {})
        if (caps.get("auth") or {}).get("logout") is not None:
            assert "result" in logout
        else:
            assert logout["error"]["code"] == -32601
        if caps.get("loadSession"):
            load = await agent.request(
                msg_id + 1, "session/load", {"sessionId": "none", "cwd": str(tmp_path), "mcpServers": []}
            )
            assert load.get("error", {}).get("code") != -32601
