"""langacp-commands in process: alone (core + this plugin), and with langacp-modes."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from langacp.client import RecordingClient
from langacp.plugins import load_plugins
from langacp.testing.harness import ServedAgent, serve_in_process

AGENT = "langacp.testing.agent:agent"


@asynccontextmanager
async def served(tmp_path: Path, *plugins: str, client: RecordingClient | None = None) -> AsyncIterator[ServedAgent]:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with serve_in_process(AGENT, plugins=["commands", *plugins], env=env, client=client) as agent:
        yield agent


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=True)
    [record] = [r for r in plugins.records if r.name == "commands"]
    assert record.status == "loaded" and record.distribution == "langacp-commands"


async def test_alone_offers_help_tools_clear_after_new_and_load(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid = await agent.start()
        assert await agent.commands(sid) == ["help", "tools", "clear"]  # no modes, no models: no /mode, /model
        agent.client.updates.clear()
        await agent.conn.close_session(session_id=sid)
        await agent.conn.resume_session(session_id=sid, cwd=str(agent.cwd))
        assert await agent.commands(sid) == ["help", "tools", "clear"]


async def test_help_and_tools(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid = await agent.start()
        help_text = await agent.reply(sid, "/help")
        assert help_text.splitlines()[0] == "Commands:" and "- `/clear`: Start a fresh conversation" in help_text
        tools = await agent.reply(sid, "/tools")
        assert tools.splitlines()[0] == "Tools (5):"
        assert "- `add` (other): Add two integers." in tools and "`noisy`" in tools


async def test_unknown_command_gets_a_helpful_answer_and_paths_go_to_the_model(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid = await agent.start()
        answer = await agent.reply(sid, "/frobnicate now")
        assert answer == "Unknown command /frobnicate. Commands: /help, /tools, /clear. Type /help for details."
        assert await agent.reply(sid, "/usr/bin/python is missing") == "You said: /usr/bin/python is missing"


async def test_clear_starts_a_fresh_thread_that_survives_resume(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid = await agent.start()
        await agent.reply(sid, "echo one")
        assert await agent.reply(sid, "history") == "echo one | history"
        assert (await agent.reply(sid, "/clear")).startswith("Started a fresh conversation")
        assert await agent.reply(sid, "history") == "history"  # the model forgot
        await agent.conn.close_session(session_id=sid)
        await agent.conn.resume_session(session_id=sid, cwd=str(agent.cwd))
        assert await agent.reply(sid, "history") == "history | history"  # still the new thread


async def test_another_plugin_command_is_listed_and_runs(tmp_path: Path) -> None:
    site = Path(__file__).resolve().parents[3] / "core" / "tests" / "fixtures" / "site"
    env = {
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "LANGACP_TESTPLUG": "commands",
    }
    async with serve_in_process(AGENT, plugins=["commands", "testplug"], env=env) as agent:
        sid = await agent.start()
        assert await agent.commands(sid) == ["help", "tools", "clear", "hello"]
        assert await agent.reply(sid, "/hello editor") == "Hello, editor!"
        assert "- `/hello`" in await agent.reply(sid, "/help")


def test_the_menu_follows_the_modes_and_options_the_core_gathered() -> None:
    """The built-ins read the hook's ``modes`` / ``config_options`` (what the response carries), not the hooks again."""
    from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption, SessionMode, SessionModeState

    from langacp.api import SessionContext, hookimpl
    from langacp.plugins import Plugins
    from langacp_commands import plugin

    class Asked:
        count = 0

        @hookimpl
        def langacp_session_modes(self, session: SessionContext) -> None:
            Asked.count += 1

        @hookimpl
        def langacp_config_options(self, session: SessionContext) -> list[object]:
            Asked.count += 1
            return []

    plugins = Plugins()
    plugins.register(Asked())
    session = SessionContext("s", "/", plugins=plugins)
    modes = SessionModeState(current_mode_id="a", available_modes=[SessionMode(id="a", name="A")])
    model = SessionConfigOptionSelect(
        type="select",
        id="model",
        name="Model",
        category="model",
        current_value="x",
        options=[SessionConfigSelectOption(value="x", name="X")],
    )
    names = [c.name for c in plugin.langacp_available_commands(session, modes, [model])]
    assert names == ["help", "mode", "model", "tools"] and Asked.count == 0
    assert [c.name for c in plugin.langacp_available_commands(session, None, [])] == ["help", "tools"]
    assert Asked.count == 0
