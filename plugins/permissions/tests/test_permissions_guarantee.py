"""The guarantee, over real pipes: no tool the policy denies, or that was not approved, ever runs.

Through parallel calls, retries, a client that never answers until it cancels, a client that
answers garbage, and a reconnect. "Never ran" is proven by the file the tool would have written.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from permissions_support import AGENT, AsyncClient, agent_env, failed_text, never, served, user_config

from langacp.client import PermissionRequest, RecordingClient
from langacp.testing.harness import serve_command


def _write(path: Path, text: str = "hello") -> dict[str, Any]:
    return {"name": "write_file", "args": {"path": str(path), "text": text}}


def _prompt(call: dict[str, Any]) -> str:
    return f"tool {call['name']} {json.dumps(call['args'])}"


async def test_parallel_calls_are_each_asked_and_none_runs_before_its_own_answer(tmp_path: Path) -> None:
    first, second, third = tmp_path / "first.txt", tmp_path / "second.txt", tmp_path / "third.txt"
    existed_when_asked: list[bool] = []
    in_flight = 0
    most_in_flight = 0

    async def reply(request: PermissionRequest) -> str:
        nonlocal in_flight, most_in_flight
        in_flight += 1
        most_in_flight = max(most_in_flight, in_flight)
        path = Path(request.tool_call.raw_input["path"])
        existed_when_asked.append(path.exists())
        await asyncio.sleep(0.3)  # time for a tool that would run too early to leave its file
        in_flight -= 1
        return "reject_once" if path == second else "allow_once"

    client = AsyncClient(reply=reply)
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        calls = [_write(first), _write(second), _write(third)]
        assert await agent.prompt(sid, "calls " + json.dumps(calls)) == "end_turn"
    assert [Path(r.tool_call.raw_input["path"]) for r in client.permission_requests] == [first, second, third]
    assert existed_when_asked == [False, False, False]
    assert most_in_flight == 1  # one request at a time per session
    assert first.exists() and third.exists() and not second.exists()


async def test_always_allow_settles_the_parallel_calls_waiting_behind_it(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_always")
    paths = [tmp_path / f"{n}.txt" for n in range(3)]
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "calls " + json.dumps([_write(p) for p in paths])) == "end_turn"
    assert len(client.permission_requests) == 1
    assert all(p.exists() for p in paths)


@pytest.mark.parametrize("answer", ["reject_once", "reject_always"])
async def test_retries_of_a_rejected_call_never_run(tmp_path: Path, answer: str) -> None:
    client = RecordingClient(answer=answer)
    target = tmp_path / "out.txt"
    call = _write(target)
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, f"retry 3 write_file {json.dumps(call['args'])}") == "end_turn"
        assert agent.client.text(sid).startswith("gave up:")
        assert len(client.permission_requests) == (3 if answer == "reject_once" else 1)
        # The client sends the same prompt again: still nothing runs.
        assert await agent.prompt(sid, _prompt(call)) == "end_turn"
    assert not target.exists()


@pytest.mark.parametrize("late_answer", ["allow_once", "allow_always", None])
async def test_a_client_that_never_answers_until_it_cancels(tmp_path: Path, late_answer: str | None) -> None:
    """The user cancels while the request is open; whatever the client answers afterwards, nothing runs."""
    release = asyncio.Event()

    async def reply(request: PermissionRequest) -> str | None:
        await release.wait()
        return late_answer

    client = AsyncClient(reply=reply)
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, _prompt(_write(target))))
        while not client.permission_requests:
            await asyncio.sleep(0.02)
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
        release.set()  # the answer arrives after the cancel
        await asyncio.sleep(0.5)
        assert not target.exists()
        agent.client.updates.clear()
        client.reply = None
        client.answer = "reject_once"
        assert await agent.prompt(sid, "dangling") == "end_turn"
        assert agent.client.text(sid) == "dangling: 0"
        assert await agent.prompt(sid, _prompt(_write(target))) == "end_turn"  # a late "always" was not kept
    assert not target.exists()


async def test_a_client_that_never_answers_at_all(tmp_path: Path) -> None:
    client = AsyncClient(reply=never)
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, _prompt(_write(target))))
        while not client.permission_requests:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
    assert not target.exists()


GARBAGE = [
    {"result": {"outcome": "yes"}},
    {"result": "allow_once"},
    {"result": {"outcome": {"outcome": "selected", "optionId": 7}}},
    {"result": {"outcome": {"outcome": "selected", "optionId": "allow_oncе"}}},  # Cyrillic "е"
    {"result": None},
    {"error": {"code": -32603, "message": "the client broke"}},
]


@pytest.mark.parametrize("answer", GARBAGE)
async def test_a_client_that_answers_garbage(tmp_path: Path, answer: dict[str, Any]) -> None:
    """Raw JSON-RPC, so the answer can be anything: it counts as a rejection and the agent keeps serving."""
    target = tmp_path / "out.txt"
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env |= agent_env(tmp_path / "config") | {"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1"}
    with (tmp_path / "stderr").open("w") as stderr:
        process = await asyncio.create_subprocess_exec(
            *serve_command(f"{AGENT}:agent", plugins=["permissions", "permkinds"]),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=env,
        )
    assert process.stdin is not None and process.stdout is not None
    requests = 0

    async def call(msg_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal requests
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode())
        process.stdin.write(b"\n")
        await process.stdin.drain()
        while True:
            message = json.loads(await asyncio.wait_for(process.stdout.readline(), 20))
            if message.get("method") == "session/request_permission":
                requests += 1
                process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}).encode() + b"\n")
                await process.stdin.drain()
            elif message.get("id") == msg_id and "method" not in message:
                return message

    try:
        await call(1, "initialize", {"protocolVersion": 1})
        sid = (await call(2, "session/new", {"cwd": str(project), "mcpServers": []}))["result"]["sessionId"]
        text = _prompt(_write(target))
        reply = await call(3, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
        assert reply["result"]["stopReason"] == "end_turn"
        assert requests == 1
        reply = await call(4, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "echo alive"}]})
        assert reply["result"]["stopReason"] == "end_turn"  # still serving
    finally:
        process.kill()
        await process.wait()
    assert not target.exists()


@pytest.mark.parametrize("how", ["resume", "load"])
async def test_remembered_answers_survive_a_reconnect(tmp_path: Path, how: str) -> None:
    client = RecordingClient(answer="allow_always")
    log = tmp_path / "commands.log"
    rejected = tmp_path / "rejected.txt"
    run = {"name": "run_command", "args": {"command": "make test", "log": str(log)}}
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        await agent.prompt(sid, _prompt(run))
        client.answer = "reject_always"
        await agent.prompt(sid, _prompt(_write(rejected)))
        assert len(client.permission_requests) == 2
        await agent.conn.close_session(session_id=sid)
        if how == "resume":
            await agent.conn.resume_session(session_id=sid, cwd=str(agent.cwd))
        else:
            await agent.conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
        client.answer = "allow_once"
        agent.client.updates.clear()
        await agent.prompt(sid, _prompt({**run, "args": {**run["args"], "command": "make test VERBOSE=1"}}))
        await agent.prompt(sid, _prompt(_write(rejected)))
        assert len(client.permission_requests) == 2  # both answered from memory
        assert "always reject `write_file`" in failed_text(agent, sid)
    assert log.read_text().splitlines() == ["make test", "make test VERBOSE=1"]
    assert not rejected.exists()


async def test_a_policy_deny_is_never_asked_and_never_runs(tmp_path: Path) -> None:
    config = user_config(tmp_path, '[permissions.tools]\n"write_*" = "deny"\n')
    client = RecordingClient(answer="allow_always")
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        for _ in range(2):
            assert await agent.prompt(sid, _prompt(_write(target))) == "end_turn"
        assert client.permission_requests == []
        assert f'the permission policy denies it (tools."write_*" = "deny" (from {config}))' in failed_text(agent, sid)
    assert not target.exists()
