"""The plans, usage, titles and stop-reasons plugins together on one agent (all four installed)."""

from __future__ import annotations

import json
from pathlib import Path

from acp import text_block

from langacp.testing.harness import serve

PLUGINS = ["plans", "usage", "titles", "stop_reasons"]


async def test_one_session_reports_plan_usage_title_and_stop_reasons(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text("[usage]\ncontext_window = 8000\n[stop_reasons]\nmax_model_calls = 4\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "user-config")}
    async with serve(plugins=PLUGINS, cwd=tmp_path, env=env) as agent:
        sid = await agent.start()
        plan = {"entries": [{"content": "Add numbers", "status": "in_progress", "priority": "high"}]}
        response = await agent.conn.prompt(session_id=sid, prompt=[text_block("tool update_plan " + json.dumps(plan))])
        assert response.stop_reason == "end_turn"
        kinds = [u.session_update for u in agent.client.of(sid) if u.session_update != "available_commands_update"]
        assert kinds[0] == "session_info_update"  # titled as soon as the prompt starts
        assert kinds.count("plan") == 1 and kinds.count("usage_update") == 2  # two model calls
        assert response.usage is not None
        assert sum(u.used for u in agent.client.of(sid, "usage_update")) == response.usage.total_tokens
        assert all(u.size == 8000 for u in agent.client.of(sid, "usage_update"))
        assert await agent.prompt(sid, "truncated") == "max_tokens"
        assert await agent.prompt(sid, "tools 9") == "max_turn_requests"
        listed = (await agent.conn.list_sessions(cwd=str(agent.cwd))).sessions
        assert listed[0].title == agent.client.of(sid, "session_info_update")[0].title

        await agent.conn.close_session(session_id=sid)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid)
        kinds = {u.session_update for u in agent.client.of(sid)}
        assert {"plan", "usage_update", "session_info_update"} <= kinds
