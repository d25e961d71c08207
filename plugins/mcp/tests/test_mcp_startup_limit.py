"""The configured MCP start-up timeout decides, not the core's limit on hooks, and other sessions do not wait."""

from __future__ import annotations

import asyncio

from mcp_support import last_tool_call, stdio_server, texts


async def test_a_server_slower_than_the_core_limits_starts_within_the_mcp_timeout(serve_mcp) -> None:
    # The core's limits (1 s) are shorter than the server's start (3 s); the MCP timeout (60 s) is not.
    env = {"LANGACP_HOOK_TIMEOUT": "1", "LANGACP_SESSION_TOOLS_TIMEOUT": "1", "LANGACP_MCP_TIMEOUT": "60"}
    async with serve_mcp(env=env) as agent:
        await agent.initialize()
        opening = asyncio.ensure_future(
            agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[stdio_server("late", "--slow-start", "3")])
        )
        # Meanwhile another session opens and answers: the slow start holds up only its own session.
        other = (await agent.conn.new_session(cwd=str(agent.cwd))).session_id
        assert await agent.prompt(other, "echo not waiting") == "end_turn"
        assert not opening.done()
        sid = (await asyncio.wait_for(opening, 60)).session_id
        await agent.prompt(sid, 'tool late__add {"a": 2, "b": 3}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["5"]
        assert "did not finish within" not in agent.stderr()
