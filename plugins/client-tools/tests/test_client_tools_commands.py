"""run_command over real pipes: in the editor's terminal, and as a local subprocess."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import text_block
from acp.schema import TerminalToolCallContent
from client_tools_support import editor, run_tool, served, tool

from langacp.testing.calls import result_text, tool_calls
from langacp.testing.editor import EditorClient
from langacp.testing.polling import eventually, wait_for_file, wait_until_gone

CLIENTS = ["editor", "bare"]


async def test_in_the_editors_terminal(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    client = editor("editor")
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "run_command", command="pwd; echo out; echo err >&2; exit 3", cwd="sub")
        updates = agent.client.of(sid)
    assert call["statuses"][-1] == "completed"
    assert result_text(call) == f"{tmp_path / 'sub'}\nout\nerr\nExit code: 3"
    # The terminal was put in the tool call while the command ran, before the call completed.
    live = [
        u
        for u in updates
        if u.session_update == "tool_call_update"
        and u.status is None
        and any(isinstance(c, TerminalToolCallContent) for c in u.content or [])
    ]
    assert len(live) == 1
    [ref] = live[0].content
    completed = next(i for i, u in enumerate(updates) if getattr(u, "status", None) == "completed")
    assert updates.index(live[0]) < completed
    assert client.methods() == ["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]
    create = client.calls[0][1]
    assert create["command"] == "pwd; echo out; echo err >&2; exit 3"
    assert create["cwd"] == str(tmp_path / "sub")
    assert create["output_byte_limit"] == 50_000
    assert all(params.get("terminal_id", ref.terminal_id) == ref.terminal_id for _, params in client.calls)


async def test_locally(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    client = editor("bare")
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "run_command", command="pwd; echo out; echo err >&2; exit 3", cwd="sub")
        assert call["statuses"][-1] == "completed"
        assert result_text(call) == f"{tmp_path / 'sub'}\nout\nerr\nExit code: 3"
        quiet = await run_tool(agent, sid, "run_command", command="true")
        assert result_text(quiet) == "(no output)\nExit code: 0"
        empty = await run_tool(agent, sid, "run_command", command="  ")
        assert empty["statuses"][-1] == "failed"
        not_dir = await run_tool(agent, sid, "run_command", command="ls", cwd="missing")
        assert not_dir["statuses"][-1] == "failed"
    assert client.calls == []


async def test_locally_a_v1_client_is_shown_no_terminal(tmp_path: Path) -> None:
    """v1 has no agent-owned terminals: a local command sends what it always did (the call and its result)."""
    async with served(tmp_path, editor("bare")) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "run_command", command="echo out; sleep 0.5 &")
        assert result_text(call) == "out\nExit code: 0"
        seen = len(agent.client.of(sid))
        await asyncio.sleep(1)  # what it left running ends: nothing more is sent
        updates = agent.client.of(sid)
    assert len(updates) == seen
    assert {u.session_update for u in updates} <= {"tool_call", "tool_call_update", "agent_message_chunk"}
    contents = [c for u in updates if u.session_update == "tool_call_update" for c in u.content or []]
    assert contents and not [c for c in contents if isinstance(c, TerminalToolCallContent)]


@pytest.mark.parametrize("kind", CLIENTS)
async def test_output_limit_keeps_the_tail(tmp_path: Path, kind: str) -> None:
    client = editor(kind)
    env = {"LANGACP_COMMAND_OUTPUT_LIMIT": "200"}
    async with served(tmp_path, client, env=env) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "run_command", command="for i in $(seq 1 500); do echo line $i; done")
    text = result_text(call)
    assert text.startswith("… (output truncated: only the last 200 bytes are kept)\n")
    assert text.endswith("line 499\nline 500\nExit code: 0")
    assert "line 1\n" not in text
    assert len(text.encode()) < 400


@pytest.mark.parametrize("kind", CLIENTS)
async def test_timeout_stops_the_command(tmp_path: Path, kind: str) -> None:
    client = editor(kind)
    env = {"LANGACP_COMMAND_TIMEOUT": "1"}
    async with served(tmp_path, client, env=env) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "run_command", command="echo $$ > pid; echo started; sleep 60; echo never")
        pid = int((tmp_path / "pid").read_text())
        assert await wait_until_gone([pid]) == []
    text = result_text(call)
    assert text.startswith("started\n") and text.endswith("Timed out after 1 s: the command was stopped.")
    assert "never" not in text
    if kind == "editor":
        assert client.methods() == [
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/kill",
            "terminal/output",
            "terminal/release",
        ]


@pytest.mark.parametrize("kind", CLIENTS)
async def test_cancel_during_a_long_command_kills_it(tmp_path: Path, kind: str) -> None:
    """The turn is cancelled while the command runs: the shell and its child are gone, by pid."""
    client = editor(kind)
    command = "echo $$ > shell.pid; sleep 120 & echo $! > child.pid; wait; echo finished > finished.txt"
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        turn = asyncio.ensure_future(
            agent.conn.prompt(session_id=sid, prompt=[text_block(tool("run_command", command=command))])
        )
        shell = int(await wait_for_file(tmp_path / "shell.pid"))
        child = int(await wait_for_file(tmp_path / "child.pid"))
        await agent.conn.cancel(session_id=sid)
        response = await asyncio.wait_for(turn, 15)
        assert response.stop_reason == "cancelled"
        assert await wait_until_gone([shell, child]) == []
        [call] = tool_calls(agent.client.of(sid)).values()
        assert call["statuses"][-1] == "failed"
        if kind == "editor":
            await eventually(lambda: "terminal/release" in client.methods())
            assert client.methods()[-2:] == ["terminal/kill", "terminal/release"]
            assert client.terminals == {}
        # The session goes on: the next command runs.
        agent.client.updates.clear()
        after = await run_tool(agent, sid, "run_command", command="echo next")
        assert result_text(after) == "next\nExit code: 0"
    assert not (tmp_path / "finished.txt").exists()


@pytest.mark.parametrize("kind", CLIENTS)
async def test_closing_the_session_stops_its_command(tmp_path: Path, kind: str) -> None:
    client = editor(kind)
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        turn = asyncio.ensure_future(
            agent.conn.prompt(
                session_id=sid, prompt=[text_block(tool("run_command", command="echo $$ > pid; sleep 120"))]
            )
        )
        pid = int(await wait_for_file(tmp_path / "pid"))
        await agent.conn.close_session(session_id=sid)
        assert (await asyncio.wait_for(turn, 15)).stop_reason == "cancelled"
        assert await wait_until_gone([pid]) == []


async def test_the_agent_exiting_stops_a_local_command(tmp_path: Path) -> None:
    """stdin closes (the editor quits) while a command runs: the agent stops it before it exits."""
    client = editor("bare")
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        prompt = [text_block(tool("run_command", command="echo $$ > pid; sleep 120"))]
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=prompt))
        pid = int(await wait_for_file(tmp_path / "pid"))
    turn.cancel()
    assert await wait_until_gone([pid]) == []


async def test_files_through_the_editor_and_commands_locally(tmp_path: Path) -> None:
    """Each capability is used on its own: an editor with fs but no terminal."""
    client = EditorClient(fs=True, terminal=False)
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        await run_tool(agent, sid, "write_file", path="a.txt", content="from the editor\n")
        call = await run_tool(agent, sid, "run_command", command="cat a.txt")
    assert result_text(call) == "from the editor\nExit code: 0"
    assert client.methods() == ["fs/read_text_file", "fs/write_text_file"]  # the proposed diff, the write


async def test_cancel_while_the_editor_is_starting_the_command(tmp_path: Path) -> None:
    """The cancel arrives before ``terminal/create`` is answered: the terminal is still killed and released."""
    client = EditorClient(terminal_start_delay=1.0)
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        prompt = [text_block(tool("run_command", command="echo $$ > pid; sleep 120"))]
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=prompt))
        pid = int(await wait_for_file(tmp_path / "pid"))
        assert client.methods() == ["terminal/create"]  # not answered yet
        await agent.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 15)).stop_reason == "cancelled"
        assert await wait_until_gone([pid]) == []
        await eventually(lambda: "terminal/release" in client.methods())
        assert client.methods() == ["terminal/create", "terminal/kill", "terminal/release"]
