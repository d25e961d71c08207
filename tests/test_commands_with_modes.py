"""langacp-commands with langacp-modes, over real pipes: /mode and /model drive the modes plugin."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from langacp.testing.harness import ServedAgent, serve

AGENT = "langacp.testing.agent:agent"


@asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[ServedAgent]:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with serve(AGENT, plugins=["commands", "modes"], env=env) as agent:
        yield agent


async def test_with_modes_mode_and_model_commands(tmp_path: Path) -> None:
    config = tmp_path / "config" / "langacp" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[models]\nchoices = [{ id = "fast", factory = "langacp.testing.agent:make_model" }]\n')
    async with served(tmp_path) as agent:
        sid = await agent.start()
        assert await agent.commands(sid) == ["help", "mode", "model", "tools", "clear"]
        listing = await agent.reply(sid, "/mode")
        assert listing.startswith("Mode: Interactive. Modes:") and "- `readonly`: Read-only" in listing
        assert await agent.reply(sid, "/mode readonly") == "Switched to Read-only mode."
        await agent.client.wait_for(lambda _: bool(agent.client.of(sid, "current_mode_update")))
        assert [u.current_mode_id for u in agent.client.of(sid, "current_mode_update")] == ["readonly"]
        assert (await agent.reply(sid, "/mode yolo")).startswith("Unknown mode 'yolo'. Modes: agentic, interactive")
        models = await agent.reply(sid, "/model")
        assert "- `default`: Default (current)" in models and "- `fast`: fast" in models
        assert await agent.reply(sid, "/model fast") == "Switched to model fast from the next turn on."
        [update] = agent.client.of(sid, "config_option_update")
        assert next(o for o in update.config_options if o.id == "model").current_value == "fast"
        assert (await agent.reply(sid, "/model gpt-17")).startswith("Unknown model 'gpt-17'")
        tools = await agent.reply(sid, "/tools")
        assert "- `switch_mode` (switch_mode)" in tools  # langacp-modes' tool, with its kind
