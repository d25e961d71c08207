"""The plans plugin in process: write_todos and update_plan become ACP plans, replayed on load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langacp.testing.harness import ServedAgent, serve_in_process

AGENT = str(Path(__file__).resolve().parent / "plans_agent.py")
TODOS = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Write the fix", "status": "in_progress"},
    {"content": "Run the tests", "status": "pending"},
]


def plans(agent: ServedAgent, sid: str) -> list[list[tuple[str, str, str]]]:
    return [[(e.content, e.status, e.priority) for e in u.entries] for u in agent.client.of(sid, "plan")]


def tool_updates(agent: ServedAgent, sid: str) -> list[Any]:
    return [u for u in agent.client.of(sid) if u.session_update.startswith("tool_call")]


async def test_write_todos_becomes_a_plan_and_is_replayed() -> None:
    async with serve_in_process(f"{AGENT}:todo_agent", plugins=["plans"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tool write_todos " + json.dumps({"todos": TODOS})) == "end_turn"
        expected = [
            ("Read the code", "completed", "medium"),
            ("Write the fix", "in_progress", "medium"),
            ("Run the tests", "pending", "medium"),
        ]
        assert plans(agent, sid) == [expected]
        kinds = [u.session_update for u in agent.client.of(sid)]
        last_tool = max(i for i, k in enumerate(kinds) if k.startswith("tool_call"))
        assert kinds.index("plan") == last_tool + 1  # right after the call completed
        final = tool_updates(agent, sid)[-1]
        assert final.status == "completed" and not final.content  # no text echo of the plan
        assert [u.title for u in tool_updates(agent, sid) if u.title][-1] == "Update plan (1/3 done)"
        assert [u.kind for u in tool_updates(agent, sid) if u.kind][-1] == "think"

        done = [{**todo, "status": "completed"} for todo in TODOS]
        assert await agent.prompt(sid, "tool write_todos " + json.dumps({"todos": done})) == "end_turn"
        assert [status for _, status, _ in plans(agent, sid)[-1]] == ["completed"] * 3

        await agent.conn.close_session(session_id=sid)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid)
        replayed = plans(agent, sid)
        assert replayed[-1] == [(c, "completed", "medium") for c, _, _ in expected]  # the latest plan wins
        assert len(replayed) == 2


async def test_builtin_update_plan_for_agents_without_write_todos() -> None:
    async with serve_in_process(f"{AGENT}:agent", plugins=["plans"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "which tools") == "end_turn"
        assert "update_plan" in agent.client.text(sid).split(", ")
        entries = [{"content": "Ship it", "status": "in_progress", "priority": "high"}, {"content": "Tell people"}]
        assert await agent.prompt(sid, "tool update_plan " + json.dumps({"entries": entries})) == "end_turn"
        assert plans(agent, sid) == [[("Ship it", "in_progress", "high"), ("Tell people", "pending", "medium")]]
        assert agent.client.text(sid).endswith("done: Plan updated: 0 of 2 steps completed.")


async def test_invalid_plan_fails_the_call_and_sends_no_plan() -> None:
    async with serve_in_process(f"{AGENT}:agent", plugins=["plans"]) as agent:
        sid = await agent.start()
        bad = {"entries": [{"content": "x", "status": "someday"}]}
        assert await agent.prompt(sid, "tool update_plan " + json.dumps(bad)) == "end_turn"
        assert tool_updates(agent, sid)[-1].status == "failed"
        assert plans(agent, sid) == []


async def test_update_plan_is_hidden_when_the_agent_has_write_todos() -> None:
    async with serve_in_process(f"{AGENT}:todo_agent", plugins=["plans"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "which tools") == "end_turn"
        names = agent.client.text(sid).split(", ")
        assert "write_todos" in names and "update_plan" not in names


async def test_builtin_tool_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text('[plans]\nbuiltin_tool = false\n[other]\nkey = "ignored"\n')
    async with serve_in_process(f"{AGENT}:agent", plugins=["plans"], cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "which tools") == "end_turn"
        assert "update_plan" not in agent.client.text(sid).split(", ")


async def test_core_alone_sends_no_plan() -> None:
    async with serve_in_process(f"{AGENT}:todo_agent") as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tool write_todos " + json.dumps({"todos": TODOS})) == "end_turn"
        assert plans(agent, sid) == []


def test_reads_the_sessions_configuration_not_the_files(tmp_path: Path, monkeypatch: Any) -> None:
    """The files are read once when the session opens (``layers_for``), not again by each hook."""
    from langacp.api import SessionContext, layers_for
    from langacp_plans import plugin

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    (tmp_path / ".langacp.toml").write_text("[plans]\nbuiltin_tool = false\n")
    session = SessionContext("s", str(tmp_path))
    layers_for(session)  # what the core does as the session opens
    (tmp_path / ".langacp.toml").unlink()
    assert plugin.langacp_session_tools(session) == []
    assert plugin.langacp_session_middleware(session) == []
