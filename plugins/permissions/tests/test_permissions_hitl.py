"""Agents that use LangChain's HumanInTheLoopMiddleware: their interrupts become permission requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from permissions_support import AsyncClient, served, user_config

from langacp.client import PermissionRequest, RecordingClient


def _write(path: Path, text: str = "hello") -> dict[str, Any]:
    return {"name": "write_file", "args": {"path": str(path), "text": text}}


def _prompt(call: dict[str, Any]) -> str:
    return f"tool {call['name']} {json.dumps(call['args'])}"


@pytest.mark.parametrize("target", ["hitl_agent", "per_call_agent", "hitl_graph", "per_call_graph"])
async def test_an_interrupt_is_one_permission_request_and_approval_runs_the_tool(tmp_path: Path, target: str) -> None:
    client = RecordingClient(answer="allow_once")
    out = tmp_path / "out.txt"
    async with served(tmp_path, target, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(_write(out))) == "end_turn"
        [request] = client.permission_requests  # asked once, not by the middleware and again by the tool guard
        announced = agent.client.of(sid, "tool_call")[0]
        assert request.tool_call.tool_call_id == announced.tool_call_id  # about the call the editor shows
        assert request.tool_call.raw_input == _write(out)["args"]
        assert [o.kind for o in request.options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
        assert agent.client.text(sid) == f"done: wrote {out}"
    assert out.read_text() == "hello\n"


@pytest.mark.parametrize("target", ["hitl_agent", "per_call_agent", "hitl_graph", "per_call_graph"])
async def test_a_rejected_interrupt_tells_the_model_and_the_tool_never_runs(tmp_path: Path, target: str) -> None:
    client = RecordingClient(answer="reject_always")
    out = tmp_path / "out.txt"
    async with served(tmp_path, target, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(_write(out))) == "end_turn"
        text = agent.client.text(sid)
        # The middleware's words, or the tool guard's when it asks first (per-call mode in a factory).
        said = ("done: User rejected the tool call for `write_file`", "done: The call to write_file did not run")
        assert text.startswith(said) and "the user declined it" in text
        assert [u.status for u in agent.client.of(sid, "tool_call_update") if u.status][-1] == "failed"
        agent.client.updates.clear()
        assert await agent.prompt(sid, _prompt(_write(out))) == "end_turn"  # remembered: not asked again
        assert "always reject `write_file`" in agent.client.text(sid)
        assert len(client.permission_requests) == 1
    assert not out.exists()


@pytest.mark.parametrize("target", ["hitl_graph", "per_call_graph"])
async def test_each_parallel_action_gets_its_own_decision(tmp_path: Path, target: str) -> None:
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"

    async def reply(request: PermissionRequest) -> str:
        return "allow_once" if request.tool_call.raw_input["path"] == str(first) else "reject_once"

    client = AsyncClient(reply=reply)
    async with served(tmp_path, target, client=client) as agent:
        sid = await agent.start()
        calls = [_write(first), {"name": "add", "args": {"a": 1, "b": 2}}, _write(second)]
        assert await agent.prompt(sid, "calls " + json.dumps(calls)) == "end_turn"
        assert [r.tool_call.raw_input["path"] for r in client.permission_requests] == [str(first), str(second)]
    assert first.exists() and not second.exists()


async def test_the_policy_answers_interrupts_it_can_decide(tmp_path: Path) -> None:
    """A precompiled graph has no tool guard; its own interrupts still follow the user's policy."""
    user_config(tmp_path, '[permissions.tools]\n"write_file" = "deny"\n"run_command" = "allow"\n')
    client = RecordingClient(answer="allow_once")
    out, log = tmp_path / "out.txt", tmp_path / "log.txt"
    async with served(tmp_path, "hitl_graph", client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(_write(out))) == "end_turn"
        assert "the permission policy denies it" in agent.client.text(sid)
        run = {"name": "run_command", "args": {"command": "ls", "log": str(log)}}
        assert await agent.prompt(sid, _prompt(run)) == "end_turn"
        assert client.permission_requests == []
    assert not out.exists() and log.read_text() == "ls\n"


@pytest.mark.parametrize("target", ["hitl_agent", "hitl_graph"])
async def test_cancelling_an_interrupt_request_ends_the_turn_cancelled(tmp_path: Path, target: str) -> None:
    client = RecordingClient(answer=None)
    out = tmp_path / "out.txt"
    async with served(tmp_path, target, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(_write(out))) == "cancelled"
        client.answer = "reject_once"
        assert await agent.prompt(sid, "echo still here") == "end_turn"
    assert not out.exists()
