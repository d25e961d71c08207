"""Editor tools: a graph on the server reads, edits and runs through the local editor.

The server's tools interrupt with an editor request; ``langacp serve --remote`` fulfils it
through the editor's ``fs/*`` and ``terminal/*`` (here a real client that does the work) and
resumes the run with the result.
"""

from __future__ import annotations

import json
from pathlib import Path

from langgraph_sdk import get_client

from langacp.testing.editor import EditorClient
from langacp_remote.testing import LangGraphDevServer, serve_remote


def _tool(name: str, **args: str) -> str:
    return f"tool {name} {json.dumps(args)}"


async def test_remote_editor_tools_round_trip_through_the_editor(
    langgraph_server: LangGraphDevServer, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("on disk\n")
    client = EditorClient(buffers={str(notes): "unsaved line\n"})
    async with serve_remote(langgraph_server.url, "editor", plugins=["remote"], client=client, cwd=tmp_path) as agent:
        sid = await agent.start()

        # read: the editor's unsaved buffer, not the disk (the server never sees the file system)
        assert await agent.prompt(sid, _tool("read_file", path=str(notes))) == "end_turn"
        assert agent.client.text(sid) == "done: unsaved line\n"
        assert ("fs/read_text_file", {"path": str(notes), "line": None, "limit": None}) in client.calls

        # edit: read and written through the editor; a relative path is the session's
        client.buffers.clear()
        agent.client.updates.clear()
        edit = _tool("edit_file", path="notes.txt", old_string="on", new_string="off")
        assert await agent.prompt(sid, edit) == "end_turn"
        assert agent.client.text(sid) == f"done: edited {notes}"
        assert notes.read_text() == "off disk\n"

        # a command runs in the editor's terminal, shown live in the tool call
        agent.client.updates.clear()
        assert await agent.prompt(sid, _tool("run_command", command="echo from the editor")) == "end_turn"
        assert agent.client.text(sid) == "done: from the editor\n\n[exit status 0]"
        assert any(
            getattr(c, "type", None) == "terminal"
            for u in agent.client.of(sid, "tool_call_update")
            for c in u.content or []
        )

        # a path outside the session's directories is refused before the editor is asked
        agent.client.updates.clear()
        calls = len(client.calls)
        assert await agent.prompt(sid, _tool("write_file", path="/etc/langacp-test", content="x")) == "end_turn"
        assert "outside the session's directories" in agent.client.text(sid)
        assert [u.status for u in agent.client.of(sid, "tool_call_update") if u.status][-1] == "failed"
        assert len(client.calls) == calls


async def test_remote_editor_tools_without_the_capability_fail_clearly(
    langgraph_server: LangGraphDevServer, tmp_path: Path
) -> None:
    client = EditorClient(fs=False, terminal=False)
    async with serve_remote(langgraph_server.url, "editor", plugins=["remote"], client=client, cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _tool("run_command", command="echo hi")) == "end_turn"
        assert "does not run commands" in agent.client.text(sid)
        assert client.calls == []


async def test_remote_roots_come_from_the_client_not_from_the_thread(
    langgraph_server: LangGraphDevServer, tmp_path: Path
) -> None:
    """Directories written into a thread's metadata (by the server or another client) do not widen the roots."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    async with serve_remote(
        langgraph_server.url, "editor", plugins=["remote"], client=EditorClient(), cwd=project
    ) as a:
        sid = await a.start()
    server = get_client(url=langgraph_server.url)
    [thread] = await server.threads.search(metadata={"langacp_session_id": sid})
    record = {**thread["metadata"]["langacp_record"], "additional_directories": [str(elsewhere)]}
    await server.threads.update(thread["thread_id"], metadata={"langacp_record": record})

    target = elsewhere / "planted.txt"
    async with serve_remote(
        langgraph_server.url, "editor", plugins=["remote"], client=EditorClient(), cwd=project
    ) as b:
        await b.initialize()
        await b.conn.load_session(cwd=str(project), session_id=sid)
        assert await b.prompt(sid, _tool("write_file", path=str(target), content="x")) == "end_turn"
        assert "outside the session's directories" in b.client.text(sid)
    assert not target.exists()
