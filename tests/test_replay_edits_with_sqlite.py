"""session/load with langacp-tools and langacp-sqlite: a replayed edit shows its result and reads no file."""

from __future__ import annotations

import json
from pathlib import Path

from acp.schema import FileEditToolCallContent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langacp.testing.harness import serve, store_thread

WORKSPACE = "langacp.testing.workspace:agent"
SIZE = 900_000
"""The edited file's size: under langacp-tools' diff limit (1 MiB), so a replay that read it would read it all."""


def _bytes_read(pid: int) -> int:
    """What the process has read so far, files and pipes alike (``rchar`` of ``/proc/<pid>/io``)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar")


async def test_a_replayed_edit_with_a_result_shows_it_without_reading_the_file(tmp_path: Path) -> None:
    edited = tmp_path / "big.txt"
    edited.write_text("b" + "x" * (SIZE - 1))  # as the edit left it
    call = {
        "name": "edit_file",
        "args": {"path": str(edited), "old_string": "a", "new_string": "b"},
        "id": "call_1",
        "type": "tool_call",
    }
    url = f"sqlite://{tmp_path / 'sessions.db'}"
    session_id = await store_thread(
        url,
        tmp_path,
        [
            HumanMessage("fix the first letter"),
            AIMessage("", tool_calls=[call]),
            ToolMessage("edited big.txt", tool_call_id="call_1", name="edit_file"),
            AIMessage("done"),
        ],
    )
    async with serve(plugins=["tools"], args=["--store", url], cwd=tmp_path) as agent:
        await agent.initialize()
        pid: int = agent.process.pid  # type: ignore[attr-defined]
        await agent.conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
        await agent.conn.close_session(session_id=session_id)  # the first load imports what loading needs
        agent.client.updates.clear()
        before = _bytes_read(pid)
        await agent.conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
        read = _bytes_read(pid) - before
        [replayed] = agent.client.of(session_id, "tool_call")
        assert (replayed.tool_call_id, replayed.kind, replayed.status) == ("call_1", "edit", "completed")
        assert [c.content.text for c in replayed.content or []] == ["edited big.txt"]
        assert [loc.path for loc in replayed.locations or []] == [str(edited)]
        # The result's content is what the call shows, as live: the edit's proposed diff (the
        # file read as it is now, then read again to diff the result) was computed and dropped.
        assert read < SIZE, read


async def test_a_turn_after_a_load_proposes_its_edit_against_the_file_as_it_is(tmp_path: Path) -> None:
    """A replayed edit whose result shows nothing shows its proposed diff (the file read at load);
    that read is not what a later call with the same model id (``call_1`` again) is compared with."""
    (tmp_path / "f.txt").write_text("at load\n")
    args = {"path": "f.txt", "content": "planned\n"}
    call = {"name": "write_file", "args": args, "id": "call_1", "type": "tool_call"}
    url = f"sqlite://{tmp_path / 'sessions.db'}"
    messages = [
        HumanMessage("write f.txt"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("", tool_call_id="call_1", name="write_file"),
        AIMessage("done"),
    ]
    session_id = await store_thread(url, tmp_path, messages)
    async with serve(WORKSPACE, plugins=["tools"], args=["--store", url], cwd=tmp_path) as agent:
        await agent.initialize()
        await agent.conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
        [replayed] = agent.client.of(session_id, "tool_call")
        [proposed] = replayed.content or []
        assert isinstance(proposed, FileEditToolCallContent)
        assert (proposed.old_text, proposed.new_text) == ("at load\n", "planned\n")
        (tmp_path / "f.txt").write_text("changed\n")
        agent.client.updates.clear()
        write = json.dumps({"path": "f.txt", "content": "new\n"})
        assert await agent.prompt(session_id, f"tool write_file {write}") == "end_turn"
        # The scripted model names it call_1 again: the client knows it by the turn's alias.
        assert {u.tool_call_id for u in agent.client.of(session_id, "tool_call")} == {"call_1#2"}
        diffs = [
            (c.old_text, c.new_text)
            for u in agent.client.of(session_id)
            if u.session_update in ("tool_call", "tool_call_update")
            for c in u.content or []
            if isinstance(c, FileEditToolCallContent)
        ]
        # proposed (before the tool ran), then the result: both against the file as the turn found it
        assert diffs == [("changed\n", "new\n"), ("changed\n", "new\n")]
        assert (tmp_path / "f.txt").read_text() == "new\n"
