"""langacp-client-tools' local commands as agent-owned terminals of an ACP v2 client, over real pipes.

A v2 client has no ``terminal/*`` methods, so ``run_command`` runs the command itself; the client
sees it as a terminal of the tool call: ``terminal_update`` (command, cwd, ``capabilities.cancel``),
``terminal_output_chunk`` s (bounded by the tool's output limit), ``terminal_update`` with
``exitStatus``. ``terminal/cancel`` stops that process alone (the turn goes on); a terminal that is
unknown, exited or another session's is -32602. Every message is checked against the official
``schema/v2/schema.json`` (npm, installed by the test).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from acp_schema import Schema
from v2_client import V2Agent, v2_agent

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"
SLEEPER = "echo $$ > sleeper.pid; echo started; exec sleep 30"
"""The shell writes its pid, then becomes ``sleep 30`` (same pid): the process a cancel must stop."""


def of_kind(agent: V2Agent, sid: str, kind: str) -> list[dict[str, Any]]:
    return [u for u in agent.updates(sid) if u["sessionUpdate"] == kind]


def output(agent: V2Agent, sid: str, terminal_id: str) -> bytes:
    chunks = [u for u in of_kind(agent, sid, "terminal_output_chunk") if u["terminalId"] == terminal_id]
    return b"".join(base64.b64decode(u["data"]) for u in chunks)


def run(agent: V2Agent, sid: str, command: str) -> asyncio.Future[dict[str, Any]]:
    prompt = "tool run_command " + json.dumps({"command": command})
    return agent.start("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": prompt}]})


async def opened(agent: V2Agent, cwd: Path) -> str:
    await agent.initialize(2)
    sid: str = (await agent.new_session(cwd))["sessionId"]
    return sid


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state != "Z"


async def started_sleeper(agent: V2Agent, sid: str, cwd: Path) -> tuple[str, int]:
    """Run :data:`SLEEPER` in ``sid``; its terminal id and pid once it runs."""
    await run(agent, sid, SLEEPER)

    def running() -> bool:
        return any(b"started" in output(agent, sid, u["terminalId"]) for u in created(agent, sid))

    await agent.wait_for(running)
    terminal = created(agent, sid)[-1]
    pid = int((cwd / "sleeper.pid").read_text())
    assert alive(pid)
    return terminal["terminalId"], pid


def created(agent: V2Agent, sid: str) -> list[dict[str, Any]]:
    return [u for u in of_kind(agent, sid, "terminal_update") if "command" in u]


async def test_a_command_is_a_terminal_with_its_output_and_exit(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"]) as agent:
        sid = await opened(agent, tmp_path)
        ack = await run(agent, sid, "echo out; echo err >&2; exit 3")
        assert set(ack["result"]) == {"messageId"}
        await agent.idle(sid)
        assert agent.states(sid) == ["running", "idle:end_turn"]

        [start] = created(agent, sid)
        terminal_id = start["terminalId"]
        assert start["command"] == "echo out; echo err >&2; exit 3"
        assert start["cwd"] == os.path.realpath(tmp_path)
        assert start["capabilities"] == {"cancel": {}}, "a running terminal may be cancelled"
        updates = agent.updates(sid)
        calls = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
        shown = [u for u in calls if {"type": "terminal", "terminalId": terminal_id} in (u.get("content") or [])]
        assert shown, "the tool call shows the terminal"
        assert output(agent, sid, terminal_id) == b"out\nerr\n"
        [end] = [u for u in of_kind(agent, sid, "terminal_update") if "exitStatus" in u]
        assert end["exitStatus"] == {"exitCode": 3} and end["capabilities"] is None
        assert "output" not in end, "everything was streamed: no replacement"
        order = [updates.index(u) for u in (start, shown[0], end)]
        chunks = [i for i, u in enumerate(updates) if u["sessionUpdate"] == "terminal_output_chunk"]
        assert order == sorted(order) and order[0] < min(chunks) and max(chunks) < order[2]
        assert calls[-1]["status"] == "completed" and "Exit code: 3" in json.dumps(calls[-1])
        agent.check()


async def test_streamed_output_is_bounded_by_the_output_limit(v2_schema: Schema, tmp_path: Path) -> None:
    env = {"LANGACP_COMMAND_OUTPUT_LIMIT": "1000"}
    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"], env=env) as agent:
        sid = await opened(agent, tmp_path)
        await run(agent, sid, "head -c 20000 /dev/zero | tr '\\0' a; echo; echo THE-END")
        await agent.idle(sid)
        [start] = created(agent, sid)
        streamed = output(agent, sid, start["terminalId"])
        assert 0 < len(streamed) <= 1000 and set(streamed) == {ord("a")}
        [end] = [u for u in of_kind(agent, sid, "terminal_update") if "exitStatus" in u]
        kept = base64.b64decode(end["output"]["data"])
        assert len(kept) == 1000 and kept.endswith(b"a\nTHE-END\n"), "the final update shows the end that was kept"
        assert end["exitStatus"] == {"exitCode": 0}
        agent.check()


async def test_terminal_cancel_stops_that_process_and_the_turn_goes_on(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"]) as agent:
        sid = await opened(agent, tmp_path)
        terminal_id, pid = await started_sleeper(agent, sid, tmp_path)
        assert agent.states(sid) == ["running"]
        answer = await agent.call("terminal/cancel", {"sessionId": sid, "terminalId": terminal_id}, timeout=10)
        assert answer == {}
        await agent.idle(sid, timeout=20)
        assert agent.states(sid) == ["running", "idle:end_turn"], "the turn went on and ended normally"
        for _ in range(100):
            if not alive(pid):
                break
            await asyncio.sleep(0.05)
        assert not alive(pid), "the cancelled command's process is gone"
        [end] = [u for u in of_kind(agent, sid, "terminal_update") if "exitStatus" in u]
        assert end["terminalId"] == terminal_id and end["capabilities"] is None
        assert end["exitStatus"].get("signal") in ("SIGTERM", "SIGKILL"), end
        calls = of_kind(agent, sid, "tool_call_update")
        assert calls[-1]["status"] == "completed"
        result = json.dumps(calls[-1])
        assert "started" in result and "Cancelled: the user stopped the command." in result
        # Exited now: not cancellable any more.
        again = await agent.request("terminal/cancel", {"sessionId": sid, "terminalId": terminal_id})
        assert again["error"]["code"] == -32602
        agent.check()


async def test_terminal_cancel_refuses_unknown_and_other_sessions_terminals(v2_schema: Schema, tmp_path: Path) -> None:
    victim_dir, attacker_dir = tmp_path / "victim", tmp_path / "attacker"
    victim_dir.mkdir()
    attacker_dir.mkdir()
    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"]) as agent:
        victim = await opened(agent, victim_dir)
        attacker: str = (await agent.new_session(attacker_dir))["sessionId"]
        unknown = await agent.request("terminal/cancel", {"sessionId": victim, "terminalId": "terminal-nope"})
        assert unknown["error"]["code"] == -32602
        terminal_id, pid = await started_sleeper(agent, victim, victim_dir)
        # Another session names the victim's terminal: refused, and the victim's command runs on.
        stolen = await agent.request("terminal/cancel", {"sessionId": attacker, "terminalId": terminal_id})
        assert stolen["error"]["code"] == -32602, stolen
        gone = await agent.request("terminal/cancel", {"sessionId": "no-such-session", "terminalId": terminal_id})
        assert "error" in gone
        await asyncio.sleep(0.3)
        assert alive(pid) and agent.states(victim) == ["running"]
        assert not [u for u in of_kind(agent, victim, "terminal_update") if "exitStatus" in u]
        assert await agent.call("terminal/cancel", {"sessionId": victim, "terminalId": terminal_id}) == {}
        await agent.idle(victim, timeout=20)
        assert agent.states(victim) == ["running", "idle:end_turn"]
        assert agent.states(attacker) == []
        agent.check()


async def test_resume_with_replay_replays_the_call_not_the_terminal(v2_schema: Schema, tmp_path: Path) -> None:
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    command = "echo ran >> runs.txt; echo done"
    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"], args=store) as agent:
        sid = await opened(agent, tmp_path)
        await run(agent, sid, command)
        await agent.idle(sid)
        assert created(agent, sid)
        agent.check()
    assert (tmp_path / "runs.txt").read_text() == "ran\n"

    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"], args=store) as agent:
        await agent.initialize(2)
        params = {"sessionId": sid, "cwd": str(tmp_path), "replayFrom": {"type": "start"}}
        await agent.call("session/resume", params)
        updates = agent.updates(sid)
        kinds = {u["sessionUpdate"] for u in updates}
        assert "tool_call_update" in kinds, "the tool call is replayed"
        assert not kinds & {"terminal_update", "terminal_output_chunk"}, "the terminal is not (nothing re-ran)"
        assert "terminal" not in json.dumps(updates), "no tool call shows a terminal the client was never told of"
        assert "done" in json.dumps(updates), "the replayed call shows the command's result"
        assert (tmp_path / "runs.txt").read_text() == "ran\n", "nothing was run again"
        agent.check()


def states(agent: V2Agent, sid: str) -> list[dict[str, Any]]:
    return of_kind(agent, sid, "state_update")


async def test_what_a_command_leaves_running_is_listed_as_background_work(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"]) as agent:
        sid = await opened(agent, tmp_path)
        await run(agent, sid, "echo plain")
        await agent.idle(sid)
        assert all("background" not in s for s in states(agent, sid)), "not reported before there is any"

        # Left running, ends on its own: listed until its terminal reports the exit, then the list drops it.
        await run(agent, sid, "sleep 2 & echo short")
        await agent.wait_for(lambda: any(s.get("stopReason") for s in states(agent, sid)[2:]))
        short = created(agent, sid)[-1]["terminalId"]
        listed = {"type": "terminal", "terminalId": short}
        turn_end = next(s for s in states(agent, sid)[2:] if s.get("stopReason"))
        assert turn_end["stopReason"] == "end_turn" and turn_end["background"] == [listed]
        assert not [u for u in of_kind(agent, sid, "terminal_update") if u["terminalId"] == short and "exitStatus" in u]
        await agent.wait_for(lambda: states(agent, sid)[-1].get("background") == [], timeout=15)
        updates = agent.updates(sid)
        [end] = [u for u in of_kind(agent, sid, "terminal_update") if u["terminalId"] == short and "exitStatus" in u]
        assert end["exitStatus"] == {"exitCode": 0}
        assert updates.index(end) < updates.index(states(agent, sid)[-1]), "the exit before the list without it"
        assert states(agent, sid)[-1]["state"] == "idle"

        # Left running for long: the client cancels it from the list.
        await run(agent, sid, "sleep 30 & echo $! > bg.pid; echo long")
        await agent.wait_for(lambda: sum(bool(s.get("stopReason")) for s in states(agent, sid)) == 3)
        long = created(agent, sid)[-1]["terminalId"]
        pid = int((tmp_path / "bg.pid").read_text())
        assert states(agent, sid)[-1]["background"] == [{"type": "terminal", "terminalId": long}]
        assert alive(pid)
        assert await agent.call("terminal/cancel", {"sessionId": sid, "terminalId": long}) == {}
        await agent.wait_for(lambda: states(agent, sid)[-1].get("background") == [], timeout=15)
        [end] = [u for u in of_kind(agent, sid, "terminal_update") if u["terminalId"] == long and "exitStatus" in u]
        assert end["exitStatus"] == {"signal": "SIGTERM"} and end["capabilities"] is None
        for _ in range(100):
            if not alive(pid):
                break
            await asyncio.sleep(0.05)
        assert not alive(pid), "the background process is gone"
        agent.check()
