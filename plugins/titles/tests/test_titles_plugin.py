"""The titles plugin in process: titles from the first prompt, the agent and /title, kept for session/list."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from acp import resource_link_block, text_block

from langacp.testing.harness import ServedAgent, serve_in_process
from langacp_titles import title_from_prompt

HERE = Path(__file__).resolve().parent


@asynccontextmanager
async def served(*, plugin: bool = True, cwd: Path | None = None) -> AsyncIterator[ServedAgent]:
    env = {"XDG_CONFIG_HOME": str(HERE / "no-user-config")}
    async with serve_in_process(plugins=["titles"] if plugin else [], env=env, cwd=cwd) as agent:
        yield agent


async def listed_title(agent: ServedAgent, sid: str) -> str | None:
    sessions = (await agent.conn.list_sessions(cwd=str(agent.cwd))).sessions
    return next(s.title for s in sessions if s.session_id == sid)


def sent_titles(agent: ServedAgent, sid: str) -> list[str | None]:
    return [u.title for u in agent.client.of(sid, "session_info_update")]


async def test_first_prompt_names_the_session() -> None:
    async with served() as agent:
        sid = await agent.start()
        await agent.prompt(sid, "Hey, can you please fix the failing test in tests/test_api.py? It fails with KeyError")
        assert sent_titles(agent, sid) == ["Fix the failing test in tests/test_api.py"]
        assert agent.client.of(sid, "session_info_update")[0].updated_at
        assert await listed_title(agent, sid) == "Fix the failing test in tests/test_api.py"
        await agent.prompt(sid, "echo another prompt")
        assert len(sent_titles(agent, sid)) == 1  # the title stays
        assert await listed_title(agent, sid) == "Fix the failing test in tests/test_api.py"

        await agent.conn.close_session(session_id=sid)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid)
        assert sent_titles(agent, sid) == ["Fix the failing test in tests/test_api.py"]  # told again on load


async def test_the_agent_names_the_session_with_a_tool() -> None:
    async with served() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool set_session_title {"title": "  Refactor the **parser**  "}') == "end_turn"
        assert sent_titles(agent, sid)[-1] == "Refactor the parser"
        assert await listed_title(agent, sid) == "Refactor the parser"
        [*_, finished] = [u for u in agent.client.of(sid) if u.session_update == "tool_call_update"]
        assert finished.status == "completed"
        titles = [u.title for u in agent.client.of(sid) if u.session_update.startswith("tool_call") and u.title]
        assert titles[-1] == "Set session title:   Refactor the **parser**  "


async def test_agent_tool_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text("[titles]\nagent_tool = false\n[usage]\ncontext_window = 10\n")
    async with served(cwd=tmp_path) as agent:
        sid = await agent.start()
        await agent.prompt(sid, 'tool set_session_title {"title": "Nope"}')
        assert "Nope" not in sent_titles(agent, sid)
        assert await listed_title(agent, sid) != "Nope"


async def test_title_command() -> None:
    async with served() as agent:
        sid = await agent.start()
        await agent.client.wait_for(lambda ups: any(u.session_update == "available_commands_update" for _, u in ups))
        [commands] = agent.client.of(sid, "available_commands_update")
        assert "title" in [c.name for c in commands.available_commands]
        assert await agent.prompt(sid, "/title") == "end_turn"
        assert agent.client.text(sid) == "This session has no title yet."
        assert await agent.prompt(sid, "/title   Release   notes for 2.0") == "end_turn"
        assert sent_titles(agent, sid) == ["Release notes for 2.0"]
        assert await listed_title(agent, sid) == "Release notes for 2.0"
        await agent.prompt(sid, "echo the first real prompt does not rename it")
        assert await listed_title(agent, sid) == "Release notes for 2.0"


async def test_core_alone_leaves_sessions_untitled() -> None:
    async with served(plugin=False) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo hello")
        assert sent_titles(agent, sid) == []
        assert await listed_title(agent, sid) is None


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("What does the retry middleware do?", "What does the retry middleware do?"),
        ("please add type hints to utils.py.", "Add type hints to utils.py"),
        ("# Bump `__version__` in **pkg/__init__.py**", "Bump __version__ in pkg/__init__.py"),
        ("```python\nprint('hi')\n```\nWhy does this print twice?", "Why does this print twice?"),
        ("Rewrite " + "the very long sentence " * 10, "Rewrite the very long sentence the very long sentence the…"),
        ("   \n\n  ", None),
    ],
)
def test_titles_from_prompt_text(text: str, title: str | None) -> None:
    made = title_from_prompt([text_block(text)])
    assert made == title
    assert made is None or len(made) <= 60


def test_a_prompt_of_files_is_named_after_them() -> None:
    blocks = [resource_link_block("api.py", "file:///work/src/api.py")]
    assert title_from_prompt(blocks) == "About api.py"


def test_reads_the_sessions_configuration_not_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files are read once when the session opens (``layers_for``), not again by each hook."""
    from langacp.api import SessionContext, layers_for
    from langacp_titles import plugin

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    (tmp_path / ".langacp.toml").write_text("[titles]\nagent_tool = false\n")
    session = SessionContext("s", str(tmp_path))
    layers_for(session)  # what the core does as the session opens
    (tmp_path / ".langacp.toml").unlink()
    assert plugin.langacp_session_tools(session) == []


async def test_one_title_tool_names_only_the_session_whose_turn_calls_it(tmp_path: Path) -> None:
    """Made once for every session; outside a turn, or for a session it was not given, it refuses."""
    from langchain_core.tools import ToolException

    from langacp.api import SessionContext
    from langacp.testing.turns import in_turn
    from langacp_titles import plugin

    a, b, stranger = (SessionContext(name, str(tmp_path)) for name in "abs")
    [tool] = plugin.langacp_session_tools(a)
    assert plugin.langacp_session_tools(b) == [tool]  # the same object
    await in_turn(b, lambda: tool.ainvoke({"title": "Named by b"}))
    assert (a.title, b.title, stranger.title) == (None, "Named by b", None)
    for attempt in (
        lambda: tool.ainvoke({"title": "x"}),
        lambda: in_turn(stranger, lambda: tool.ainvoke({"title": "x"})),
    ):
        with pytest.raises(ToolException, match="runs only in a turn of a session it was given to"):
            await attempt()
    assert (a.title, b.title, stranger.title) == (None, "Named by b", None)
