"""A graph on a LangGraph Server, mapped by the same plugins as a local one (langacp-remote + others).

Human-in-the-loop interrupts of the server's graph become permission requests
(langacp-permissions), with "always" answers remembered; tool kinds, usage and titles come
from langacp-tools, langacp-usage and langacp-titles.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp import text_block
from langgraph_sdk import get_client

from langacp.client import RecordingClient
from langacp.testing.editor import EditorClient
from langacp.testing.forms import FormClient
from langacp_remote.testing import LangGraphDevServer, serve_remote

GRAPHS = Path(__file__).with_name("remote_plugin_graphs.py")
ASKING = Path(__file__).resolve().parents[1] / "plugins" / "elicitation" / "tests" / "elicitation_graphs.py"
PLUGINS = ["permissions", "tools", "usage", "titles"]


@pytest.fixture(scope="module")
def server() -> Iterator[LangGraphDevServer]:
    graphs = {name: f"{GRAPHS}:{name}" for name in ("hitl", "editor", "planner")}
    graphs["asker"] = f"{ASKING}:asker"
    with LangGraphDevServer(graphs) as running:
        yield running


def _write(path: Path) -> str:
    return "tool write_file " + json.dumps({"path": str(path), "text": "hello"})


async def test_an_approved_interrupt_runs_the_tool_on_the_server(server: LangGraphDevServer, tmp_path: Path) -> None:
    out = tmp_path / "approved.txt"
    client = RecordingClient(answer="allow_once")
    async with serve_remote(server.url, "hitl", plugins=PLUGINS, client=client, cwd=tmp_path) as agent:
        sid = await agent.start()
        response = await agent.conn.prompt(session_id=sid, prompt=[text_block(_write(out))])
        assert response.stop_reason == "end_turn"
        [request] = client.permission_requests
        [announced] = agent.client.of(sid, "tool_call")
        assert request.tool_call.tool_call_id == announced.tool_call_id  # about the call the editor shows
        assert announced.kind == "edit"  # langacp-tools maps the server's tool like a local one
        assert agent.client.text(sid) == f"done: wrote {out}"
        assert response.usage is not None and response.usage.output_tokens > 0  # langacp-usage
        listed = await agent.conn.list_sessions(cwd=str(tmp_path))
        assert listed.sessions[0].title  # langacp-titles: stored in the thread's metadata
    assert out.read_text() == "hello\n"


async def test_a_rejected_interrupt_never_runs_and_always_reject_is_remembered(
    server: LangGraphDevServer, tmp_path: Path
) -> None:
    out = tmp_path / "rejected.txt"
    client = RecordingClient(answer="reject_always")
    async with serve_remote(server.url, "hitl", plugins=PLUGINS, client=client, cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _write(out)) == "end_turn"
        assert "the user declined it" in agent.client.text(sid)
        assert [u.status for u in agent.client.of(sid, "tool_call_update") if u.status][-1] == "failed"
        agent.client.updates.clear()
        assert await agent.prompt(sid, _write(out)) == "end_turn"
        assert "always reject `write_file`" in agent.client.text(sid)
        assert len(client.permission_requests) == 1  # remembered: not asked again
    assert not out.exists()


async def test_editor_requests_follow_the_local_permission_policy(server: LangGraphDevServer, tmp_path: Path) -> None:
    """A command the server's agent wants to run in the editor is asked about first; rejected, it never runs."""
    client = EditorClient(answer="reject_once")
    marker = tmp_path / "ran"
    command = "tool run_command " + json.dumps({"command": f"touch {marker}"})
    plugins = [*PLUGINS, "remote"]
    async with serve_remote(server.url, "editor", plugins=plugins, client=client, cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, command) == "end_turn"
        [request] = client.permission_requests
        [announced] = agent.client.of(sid, "tool_call")
        assert request.tool_call.tool_call_id == announced.tool_call_id
        assert announced.kind == "execute"
        assert "did not run" in agent.client.text(sid)
        assert not any(method.startswith("terminal/") for method in client.methods())

        client.answer = "allow_once"
        agent.client.updates.clear()
        assert await agent.prompt(sid, command) == "end_turn"
        assert agent.client.text(sid) == "done: \n[exit status 0]"
    assert marker.exists()


async def test_clear_starts_a_new_server_thread_for_the_session(server: LangGraphDevServer, tmp_path: Path) -> None:
    """``/clear`` (langacp-commands): the model forgets; another process loads the session's new thread."""
    async with serve_remote(server.url, "hitl", plugins=["commands"], cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "echo before") == "end_turn"
        assert await agent.prompt(sid, "/clear") == "end_turn"
        agent.client.updates.clear()
        assert await agent.prompt(sid, "history") == "end_turn"
        assert agent.client.text(sid) == "history"

        async with serve_remote(server.url, "hitl", cwd=tmp_path) as other:
            await other.initialize()
            listed = await other.conn.list_sessions(cwd=str(tmp_path))
            assert [s.session_id for s in listed.sessions] == [sid]
            await other.conn.load_session(cwd=str(tmp_path), session_id=sid)
            assert [u.content.text for u in other.client.of(sid, "user_message_chunk")] == ["history"]


async def test_an_edit_by_the_servers_agent_shows_as_a_diff_in_the_editor(
    server: LangGraphDevServer, tmp_path: Path
) -> None:
    """The editor tool's result carries the change; langacp-tools shows it as a diff."""
    notes = tmp_path / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    edit = "tool edit_file " + json.dumps({"path": str(notes), "old_string": "beta", "new_string": "gamma"})
    async with serve_remote(
        server.url, "editor", plugins=["tools", "remote"], client=EditorClient(), cwd=tmp_path
    ) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, edit) == "end_turn"
        [final] = [u for u in agent.client.of(sid, "tool_call_update") if u.status == "completed"]
        [diff] = [c for c in final.content or [] if c.type == "diff"]
        assert (diff.path, diff.old_text, diff.new_text) == (str(notes), "alpha\nbeta\n", "alpha\ngamma\n")
    assert notes.read_text() == "alpha\ngamma\n"


async def test_a_permission_request_cancelled_ends_the_turn_and_the_thread_goes_on(
    server: LangGraphDevServer, tmp_path: Path
) -> None:
    out = tmp_path / "never.txt"
    client = RecordingClient(answer=None)  # the editor answers "cancelled"
    async with serve_remote(server.url, "hitl", plugins=PLUGINS, client=client, cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _write(out)) == "cancelled"
        agent.client.updates.clear()
        assert await agent.prompt(sid, "dangling") == "end_turn"  # the interrupted call was answered
        assert agent.client.text(sid) == "dangling: 0"
    assert not out.exists()


async def test_a_remote_todo_list_is_the_editors_plan(server: LangGraphDevServer, tmp_path: Path) -> None:
    todos = [{"content": "read the code", "status": "completed"}, {"content": "fix the bug", "status": "in_progress"}]
    async with serve_remote(server.url, "planner", plugins=["plans"], cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tool write_todos " + json.dumps({"todos": todos})) == "end_turn"
        [plan] = agent.client.of(sid, "plan")
        assert [(e.content, e.status) for e in plan.entries] == [(t["content"], t["status"]) for t in todos]


async def test_always_allow_stays_in_the_process_not_on_the_server(server: LangGraphDevServer, tmp_path: Path) -> None:
    """Thread metadata is writable by the server and its other clients: it must not pre-approve
    anything on this machine, so remembered answers are not kept there."""

    log = tmp_path / "log"
    command = "tool run_command " + json.dumps({"command": f"echo ran >> {log}"})
    plugins = [*PLUGINS, "remote"]
    first_client = EditorClient(answer="allow_always")
    async with serve_remote(server.url, "editor", plugins=plugins, client=first_client, cwd=tmp_path) as first:
        sid = await first.start()
        assert await first.prompt(sid, command) == "end_turn"
        assert await first.prompt(sid, command) == "end_turn"
        assert len(first_client.permission_requests) == 1  # remembered in this process

    threads = await get_client(url=server.url).threads.search(metadata={"langacp_session_id": sid})
    assert [set(t["metadata"]["langacp_record"]["data"]) - {"remote"} for t in threads] == [set()]

    second_client = EditorClient(answer="reject_once")
    async with serve_remote(server.url, "editor", plugins=plugins, client=second_client, cwd=tmp_path) as second:
        await second.initialize()
        await second.conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert await second.prompt(sid, command) == "end_turn"
        assert len(second_client.permission_requests) == 1  # asked again: nothing came from the server
    assert log.read_text() == "ran\nran\n"


async def test_a_server_graphs_question_is_a_form(server: LangGraphDevServer, tmp_path: Path) -> None:
    client = FormClient(answer_form=lambda message, schema: {"answer": "production"})
    plugins = [*PLUGINS, "elicitation"]
    async with serve_remote(server.url, "asker", plugins=plugins, client=client, cwd=tmp_path) as agent:
        sid = await agent.start()
        assert 'resumed with "production"' in await agent.reply(sid, "options")
        [question] = client.questions
        assert question.message == "Which environment should I deploy to?"


async def test_a_server_graphs_question_without_forms_is_answered_by_the_next_prompt(
    server: LangGraphDevServer, tmp_path: Path
) -> None:
    plugins = [*PLUGINS, "elicitation"]
    async with serve_remote(server.url, "asker", plugins=plugins, client=RecordingClient(), cwd=tmp_path) as agent:
        sid = await agent.start()
        text = await agent.reply(sid, "options")
        assert "2. production" in text and "resumed with" not in text
        assert 'resumed with "production"' in await agent.reply(sid, "2")
