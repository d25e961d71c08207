"""A remote graph's context schema becomes config options; the chosen values are each run's context."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError

from langacp_remote.testing import LangGraphDevServer, serve_remote


async def test_remote_context_choices_are_config_options_sent_with_every_run(
    langgraph_server: LangGraphDevServer, tmp_path: Path
) -> None:
    async with serve_remote(langgraph_server.url, "configured", plugins=["remote"], cwd=tmp_path) as agent:
        await agent.initialize()
        created = await agent.conn.new_session(cwd=str(tmp_path))
        sid = created.session_id
        options = {o.id: o for o in created.config_options or []}
        assert set(options) == {"model", "verbose"}  # the free-form user_name is not offered
        assert [o.value for o in options["model"].options] == ["small", "large"]
        assert options["model"].current_value == "small" and options["verbose"].current_value is False

        changed = await agent.conn.set_config_option(config_id="model", session_id=sid, value="large")
        assert {o.id: o.current_value for o in changed.config_options}["model"] == "large"
        with pytest.raises(RequestError):
            await agent.conn.set_config_option(config_id="model", session_id=sid, value="huge")
        assert await agent.prompt(sid, "tool show_context {}") == "end_turn"
        assert agent.client.text(sid) == 'done: {"model": "large", "verbose": false}'

    # kept with the session: another process loads it with the same choice
    async with serve_remote(langgraph_server.url, "configured", plugins=["remote"], cwd=tmp_path) as other:
        await other.initialize()
        loaded = await other.conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert {o.id: o.current_value for o in loaded.config_options or []}["model"] == "large"


async def test_remote_graph_without_a_context_schema_offers_no_options(langgraph_server: LangGraphDevServer) -> None:
    async with serve_remote(langgraph_server.url, "agent", plugins=["remote"]) as agent:
        await agent.initialize()
        created = await agent.conn.new_session(cwd=str(agent.cwd))
        assert not created.config_options
        assert created.modes is None
