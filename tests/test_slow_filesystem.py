"""A hung file system (a dead NFS mount) holds up only the session that touches it.

No hung mount can be made here, so the served agent gets a stand-in (``tests/fixtures/slow_fs``
on ``PYTHONPATH``): ``os.stat``, ``os.lstat`` and ``os.open`` of one directory wait while a gate
file exists. With the gate shut, one session touches that directory; another session's prompt
must still complete, over real pipes, while the first one waits. Two kinds of path: a session's
working directory (the configuration files, the client tools' and langacp-tools' session roots)
and a tool call's path argument (langacp-tools' titles and diffs, the client tools' checks).
Every call into the directory made on the event loop's thread is logged, gate shut or not: there
must be none.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from langacp.testing.harness import DEFAULT_TARGET, ServedAgent, serve
from langacp.testing.polling import eventually

SLOW_FS = Path(__file__).resolve().parent / "fixtures" / "slow_fs"
EDIT_TARGET = Path(__file__).resolve().parent / "fixtures" / "slow_edit_target.py"
PLUGINS = ["client-tools", "tools"]
PATIENCE = 60.0
"""Seconds the other session's prompt gets (it takes well under one; only a blocked event loop reaches this)."""


class Gate:
    """The slow directory's gate: shut, every call into the directory waits."""

    def __init__(self, slow: Path) -> None:
        self.file = Path(f"{slow}.gate")
        self.waiting = Path(f"{slow}.waiting")
        self.loop_log = Path(f"{slow}.loop")

    def shut(self) -> None:
        self.waiting.unlink(missing_ok=True)
        self.file.touch()

    def open(self) -> None:
        self.file.unlink(missing_ok=True)

    def calls_on_the_event_loop(self) -> str:
        return self.loop_log.read_text() if self.loop_log.exists() else ""


@asynccontextmanager
async def served(slow: Path, cwd: Path, target: str = DEFAULT_TARGET) -> AsyncIterator[tuple[ServedAgent, Gate]]:
    pythonpath = os.pathsep.join(p for p in (str(SLOW_FS), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": pythonpath, "LANGACP_TEST_SLOW_DIR": str(slow)}
    gate = Gate(slow)
    try:
        async with serve(target, plugins=PLUGINS, args=["--store", "memory"], env=env, cwd=cwd) as agent:
            yield agent, gate
            gate.open()
    finally:
        gate.open()  # a failed test must not leave the agent waiting


async def assert_other_session_goes_on(agent: ServedAgent, gate: Gate, stuck: asyncio.Future[object], sid: str) -> None:
    """With ``stuck`` waiting on the shut gate, a prompt in session ``sid`` completes."""
    await eventually(gate.waiting.exists, PATIENCE)  # the first session is in the slow directory now
    other = asyncio.ensure_future(agent.prompt(sid, "echo still here"))
    done, _ = await asyncio.wait({other}, timeout=PATIENCE)
    assert other in done, f"the other session was held up; calls on the event loop:\n{gate.calls_on_the_event_loop()}"
    assert other.result() == "end_turn"
    assert not stuck.done()  # the slow call is still waiting
    assert gate.calls_on_the_event_loop() == ""


@pytest.mark.parametrize("target", [DEFAULT_TARGET, "langacp.default_agent.agent:agent"])
async def test_a_session_in_a_hung_directory_holds_up_no_other_session(tmp_path: Path, target: str) -> None:
    """The scripted agent, and langacp's default agent (its file tools resolve the session's directories)."""
    slow, elsewhere = tmp_path / "slow", tmp_path / "elsewhere"
    slow.mkdir()
    elsewhere.mkdir()
    (slow / ".langacp.toml").write_text("[tools.kinds]\nmy_tool = 'execute'\n")
    async with served(slow, elsewhere, target) as (agent, gate):
        sid = await agent.start()
        first = await agent.new_session(str(slow))  # read while the directory answers: kept for the next ones
        await agent.conn.close_session(session_id=first)
        gate.shut()
        opening = asyncio.ensure_future(agent.new_session(str(slow)))
        await assert_other_session_goes_on(agent, gate, opening, sid)
        gate.open()
        slow_sid = await opening
        assert await agent.prompt(slow_sid, "echo opened") == "end_turn"
    assert gate.calls_on_the_event_loop() == ""  # nor once the directory answered again


async def test_a_tool_call_naming_a_hung_path_holds_up_no_other_session(tmp_path: Path) -> None:
    work = tmp_path / "work"
    slow = work / "mnt"  # a mount inside the project
    slow.mkdir(parents=True)
    (slow / "notes.txt").write_text("remote notes\n")
    async with served(slow, work) as (agent, gate):
        sid = await agent.start()
        other = await agent.new_session()
        for call in (
            'tool read_file {"path": "mnt/notes.txt"}',
            'tool write_file {"path": "mnt/new.txt", "content": "x"}',
        ):
            agent.client.updates.clear()
            gate.shut()
            calling = asyncio.ensure_future(agent.prompt(sid, call))
            await assert_other_session_goes_on(agent, gate, calling, other)
            gate.open()
            assert await calling == "end_turn"
        assert (slow / "new.txt").read_text() == "x"
    assert gate.calls_on_the_event_loop() == ""  # nor once the directory answered again


async def test_an_edited_file_that_hangs_after_the_tool_ran_holds_up_no_other_session(tmp_path: Path) -> None:
    """The edit's new text, for its result's diff, is read off the event loop: the tool writes the
    file, then shuts the gate itself (``tests/fixtures/slow_edit_target.py``)."""
    work = tmp_path / "work"
    slow = work / "mnt"
    slow.mkdir(parents=True)
    notes = slow / "notes.txt"
    notes.write_text("old\n")
    async with served(slow, work, f"{EDIT_TARGET}:agent") as (agent, gate):
        sid = await agent.start()
        other = await agent.new_session()
        calling = asyncio.ensure_future(
            agent.prompt(sid, f"tool write_notes {json.dumps({'path': str(notes), 'content': 'new'})}")
        )
        await assert_other_session_goes_on(agent, gate, calling, other)
        gate.open()
        assert await calling == "end_turn"
        assert notes.read_text() == "new"
    assert gate.calls_on_the_event_loop() == ""  # nor once the directory answered again


async def test_an_edit_whose_file_did_not_answer_in_time_is_not_read_on_the_event_loop(tmp_path: Path) -> None:
    """The edit's file is read for its proposed diff in a worker thread, which gives up after its time
    limit (logged): what is shown with the call then reads nothing more on the event loop."""
    work = tmp_path / "work"
    slow = work / "mnt"
    slow.mkdir(parents=True)
    async with served(slow, work) as (agent, gate):
        sid = await agent.start()
        other = await agent.new_session()
        gate.shut()
        calling = asyncio.ensure_future(agent.prompt(sid, 'tool write_file {"path": "mnt/new.txt", "content": "x"}'))
        await eventually(lambda: "for its diff took too long" in agent.stderr(), PATIENCE)
        await assert_other_session_goes_on(agent, gate, calling, other)
        gate.open()
        assert await calling == "end_turn"
        assert (slow / "new.txt").read_text() == "x"
    assert gate.calls_on_the_event_loop() == ""  # nor once the directory answered again
