"""Commands never outlive the agent or their session, and never hold a turn open."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

from robustness_support import alive, raw_agent, tool_updates, wait_for_file, wait_until_gone


def run_command(command: str) -> str:
    return "tool run_command " + json.dumps({"command": command})


async def test_kill_9_of_the_agent_leaves_no_command_behind(tmp_path: Path) -> None:
    command = "echo $$ > shell.pid; sleep 300 & echo $! > child.pid; wait"
    async with raw_agent(tmp_path, plugins=["client-tools"]) as agent:
        sid = await agent.start(str(tmp_path))
        await agent.send(agent.prompt_message(50, sid, run_command(command)))
        shell = int(await wait_for_file(tmp_path / "shell.pid"))
        child = int(await wait_for_file(tmp_path / "child.pid"))
        assert alive(shell) and alive(child)
        agent.process.send_signal(signal.SIGKILL)
        await agent.process.wait()
        assert await wait_until_gone([shell, child], timeout=15) == []


async def test_a_background_child_does_not_hold_the_turn_and_goes_with_the_session(tmp_path: Path) -> None:
    command = "sleep 300 & echo $! > bg.pid; echo started"
    async with raw_agent(tmp_path, plugins=["client-tools"]) as agent:
        sid = await agent.start(str(tmp_path))
        began = time.monotonic()
        reply = await agent.prompt(sid, run_command(command))
        assert reply["result"]["stopReason"] == "end_turn"
        assert time.monotonic() - began < 20  # not the 300 s the background sleep holds the pipe
        [*_, last] = tool_updates(agent.notifications, sid)
        assert last["status"] == "completed" and "started" in json.dumps(last["rawOutput"])
        background = int((tmp_path / "bg.pid").read_text())
        assert alive(background)  # it runs on while the session lives (a dev server, say)
        closed = await agent.request("session/close", {"sessionId": sid})
        assert "result" in closed
        assert await wait_until_gone([background]) == []


async def test_cancel_and_exit_stop_the_whole_group(tmp_path: Path) -> None:
    command = "echo $$ > shell.pid; (sleep 300; echo late) & echo $! > child.pid; sleep 300"
    async with raw_agent(tmp_path, plugins=["client-tools"]) as agent:
        sid = await agent.start(str(tmp_path))
        await agent.send(agent.prompt_message(60, sid, run_command(command)))
        shell = int(await wait_for_file(tmp_path / "shell.pid"))
        child = int(await wait_for_file(tmp_path / "child.pid"))
        await agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        reply = await agent.reply_to(60)
        assert reply["result"]["stopReason"] == "cancelled"
        assert await wait_until_gone([shell, child]) == []
        # A command still running when stdin closes is stopped before the agent exits.
        (tmp_path / "shell.pid").unlink()
        await agent.send(agent.prompt_message(61, sid, run_command("echo $$ > shell.pid; sleep 300")))
        shell = int(await wait_for_file(tmp_path / "shell.pid"))
        assert agent.process.stdin is not None
        agent.process.stdin.close()
        assert await asyncio.wait_for(agent.process.wait(), 30) == 0
        assert await wait_until_gone([shell]) == []
