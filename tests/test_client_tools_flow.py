"""langacp-client-tools with langacp-tools and langacp-permissions, over real pipes.

Every write, edit and command goes through the permission policy (edits and commands ask by
default); the request shows the proposed diff or the command; a rejected call writes nothing
and runs nothing, through the editor or locally. Allowed, the editor sees the diff before and
after, and the command's terminal live.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp.schema import FileEditToolCallContent, TerminalToolCallContent

from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent, serve

TARGET = "langacp.testing.agent:agent"
PLUGINS = ["client-tools", "tools", "permissions"]
CLIENTS = ["editor", "bare"]


@asynccontextmanager
async def served(workdir: Path, client: EditorClient, config_home: Path) -> AsyncIterator[ServedAgent]:
    config_home.mkdir(exist_ok=True)
    env = {"XDG_CONFIG_HOME": str(config_home)}  # never the real user's permission config
    try:
        async with serve(TARGET, plugins=PLUGINS, cwd=workdir, client=client, env=env) as agent:
            yield agent
    finally:
        await client.aclose()


def _client(kind: str, answer: str) -> EditorClient:
    return EditorClient(answer=answer, fs=kind == "editor", terminal=kind == "editor")


async def _call(agent: ServedAgent, sid: str, name: str, **args: Any) -> dict[str, Any]:
    """One turn calling one tool; the call as the client last saw it, with every content it was sent."""
    agent.client.updates.clear()
    assert await agent.prompt(sid, f"tool {name} {json.dumps(args)}") == "end_turn"
    seen: dict[str, Any] = {"statuses": [], "contents": []}
    for update in agent.client.of(sid):
        if update.session_update in ("tool_call", "tool_call_update"):
            for field in ("title", "kind", "raw_output"):
                if getattr(update, field, None) is not None:
                    seen[field] = getattr(update, field)
            if update.status is not None:
                seen["statuses"].append(update.status)
            if update.content:
                seen["contents"].append(update.content)
    return seen


@pytest.mark.parametrize("kind", CLIENTS)
async def test_rejected_writes_edits_and_commands_do_nothing(tmp_path: Path, kind: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("x = 1\n")
    client = _client(kind, "reject_once")
    async with served(work, client, tmp_path / "config") as agent:
        sid = await agent.start()
        write = await _call(agent, sid, "write_file", path="new.txt", content="hello\n")
        edit = await _call(agent, sid, "edit_file", path="app.py", old_string="x = 1", new_string="x = 2")
        run = await _call(agent, sid, "run_command", command="touch ran.txt")
    for call in (write, edit, run):
        assert call["statuses"][-1] == "failed"
        assert "the user declined it" in str(call["raw_output"])
    assert not (work / "new.txt").exists()
    assert (work / "app.py").read_text() == "x = 1\n"
    assert not (work / "ran.txt").exists()
    # Nothing was written and nothing run; the editor was only read, for the proposed diffs.
    assert client.methods() == (["fs/read_text_file"] * 2 if kind == "editor" else [])

    new_file, change, command = client.permission_requests
    assert (new_file.tool_call.kind, new_file.tool_call.title) == ("edit", "Write new.txt")
    [diff] = new_file.tool_call.content or []
    assert isinstance(diff, FileEditToolCallContent)
    assert (diff.path, diff.old_text, diff.new_text) == (str(work / "new.txt"), None, "hello\n")
    assert (change.tool_call.kind, change.tool_call.title) == ("edit", "Edit app.py")
    [diff] = change.tool_call.content or []
    assert (diff.old_text, diff.new_text) == ("x = 1\n", "x = 2\n")
    assert (command.tool_call.kind, command.tool_call.title) == ("execute", "Run `touch ran.txt`")
    assert {o.kind for o in command.options} >= {"allow_once", "reject_once"}


@pytest.mark.parametrize("kind", CLIENTS)
async def test_allowed_calls_show_diffs_and_the_terminal(tmp_path: Path, kind: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("x = 1\n")
    client = _client(kind, "allow_once")
    async with served(work, client, tmp_path / "config") as agent:
        sid = await agent.start()
        read = await _call(agent, sid, "read_file", path="app.py")
        edit = await _call(agent, sid, "edit_file", path="app.py", old_string="x = 1", new_string="x = 2")
        run = await _call(agent, sid, "run_command", command="cat app.py")
    assert [r.tool_call.title for r in client.permission_requests] == ["Edit app.py", "Run `cat app.py`"]  # no read
    assert (read["kind"], read["title"], read["statuses"][-1]) == ("read", "Read app.py", "completed")
    assert (work / "app.py").read_text() == "x = 2\n"
    # The proposed diff when the arguments are known, then the diff of what was written.
    proposed, result = edit["contents"]
    for content in (proposed, result):
        [diff] = content
        assert isinstance(diff, FileEditToolCallContent)
        assert (diff.path, diff.old_text, diff.new_text) == (str(work / "app.py"), "x = 1\n", "x = 2\n")
    assert (run["kind"], run["statuses"][-1]) == ("execute", "completed")
    assert run["raw_output"] == "x = 2\nExit code: 0"
    if kind == "editor":
        # The terminal while it runs, and as the result: the editor shows the output, not a copy.
        assert all(isinstance(c, TerminalToolCallContent) for content in run["contents"] for c in content)
        assert len(run["contents"]) == 2
        assert client.methods() == [
            "fs/read_text_file",  # read_file
            "fs/read_text_file",  # the buffer for the proposed diff
            "fs/read_text_file",  # edit_file
            "fs/write_text_file",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release",
        ]
    else:
        [[text]] = run["contents"]
        assert text.content.text == "x = 2\nExit code: 0"
        assert client.calls == []


async def test_the_result_diff_is_of_the_editors_buffer(tmp_path: Path) -> None:
    """The user had unsaved changes: the diff after the edit is against them, not the stale disk."""
    work = tmp_path / "work"
    work.mkdir()
    app = work / "app.py"
    app.write_text("x = 1\n")
    client = EditorClient(answer="allow_once", buffers={str(app): "x = 1  # unsaved\n"})
    async with served(work, client, tmp_path / "config") as agent:
        sid = await agent.start()
        edit = await _call(agent, sid, "edit_file", path="app.py", old_string="x = 1", new_string="x = 2")
        write = await _call(agent, sid, "write_file", path="app.py", content="y = 0\n")
    [result] = edit["contents"][-1]
    assert (result.path, result.old_text, result.new_text) == (str(app), "x = 1  # unsaved\n", "x = 2  # unsaved\n")
    [result] = write["contents"][-1]
    assert (result.old_text, result.new_text) == ("x = 2  # unsaved\n", "y = 0\n")
    assert app.read_text() == "y = 0\n"


async def test_without_langacp_tools_the_policy_still_tells_reads_from_writes(tmp_path: Path) -> None:
    """The plugin names its own tools' kinds when no kind mapper does: reads run, writes and commands ask."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("a\n")
    config = tmp_path / "config"
    config.mkdir()
    client = _client("editor", "reject_once")
    env = {"XDG_CONFIG_HOME": str(config)}
    try:
        async with serve(TARGET, plugins=["client-tools", "permissions"], cwd=work, client=client, env=env) as agent:
            sid = await agent.start()
            read = await _call(agent, sid, "read_file", path="a.txt")
            write = await _call(agent, sid, "write_file", path="a.txt", content="b\n")
            run = await _call(agent, sid, "run_command", command="touch ran.txt")
    finally:
        await client.aclose()
    assert read["statuses"][-1] == "completed"
    assert [(r.tool_call.kind, r.tool_call.title) for r in client.permission_requests] == [
        ("edit", "write_file"),
        ("execute", "run_command"),
    ]
    assert (write["statuses"][-1], run["statuses"][-1]) == ("failed", "failed")
    assert (work / "a.txt").read_text() == "a\n" and not (work / "ran.txt").exists()


async def test_the_proposed_diff_is_of_the_editors_buffer(tmp_path: Path) -> None:
    """The text to replace exists only in the unsaved buffer: the user still reviews the right diff."""
    work = tmp_path / "work"
    work.mkdir()
    app = work / "app.py"
    app.write_text("x = 1\n")
    buffer = "x = 1\ny = 2  # unsaved\n"
    client = EditorClient(answer="reject_once", buffers={str(app): buffer})
    async with served(work, client, tmp_path / "config") as agent:
        sid = await agent.start()
        edit = await _call(agent, sid, "edit_file", path="app.py", old_string="y = 2", new_string="y = 3")
        write = await _call(agent, sid, "write_file", path="app.py", content="z = 0\n")
        missing = await _call(agent, sid, "edit_file", path="app.py", old_string="nowhere", new_string="x")
    for request, new in zip(client.permission_requests[:2], ("x = 1\ny = 3  # unsaved\n", "z = 0\n"), strict=True):
        [diff] = request.tool_call.content or []
        assert isinstance(diff, FileEditToolCallContent)
        assert (diff.path, diff.old_text, diff.new_text) == (str(app), buffer, new)
    [proposed] = edit["contents"][0]  # also in the tool call itself, before it ran
    assert proposed.old_text == buffer
    assert write["contents"][0][0].new_text == "z = 0\n"
    assert not client.permission_requests[2].tool_call.content  # an edit that will fail proposes nothing
    assert missing["statuses"][-1] == "failed"
    assert app.read_text() == "x = 1\n" and client.buffers[str(app)] == buffer  # all rejected
    assert client.methods() == ["fs/read_text_file"] * 3  # the previews: nothing written
