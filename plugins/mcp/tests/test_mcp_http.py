"""Servers over streamable HTTP and SSE: a FastMCP server run by uvicorn in its own process."""

from __future__ import annotations

import pytest
from mcp_support import http_entry, http_server, last_tool_call, stdio_server, texts


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_tools_of_a_remote_server_run(serve_mcp, transport: str) -> None:
    async with http_server(transport) as url, serve_mcp() as agent:
        await agent.initialize()
        sid = (
            await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[http_entry("web", url, transport)])
        ).session_id
        assert await agent.prompt(sid, 'tool web__add {"a": 20, "b": 22}') == "end_turn"
        title, final, blocks = last_tool_call(agent.client, sid)
        assert (title, final.status, texts(blocks)) == ("add (web)", "completed", ["42"])
        # The same remote session serves every call.
        await agent.prompt(sid, "tool web__pid {}")
        first = texts(last_tool_call(agent.client, sid)[2])
        await agent.prompt(sid, "tool web__picture {}")
        assert [b.type for b in last_tool_call(agent.client, sid)[2]] == ["text", "image"]
        await agent.prompt(sid, "tool web__pid {}")
        assert texts(last_tool_call(agent.client, sid)[2]) == first


async def test_http_and_stdio_servers_side_by_side_and_an_unreachable_one(serve_mcp) -> None:
    async with http_server("http") as url, serve_mcp() as agent:
        await agent.initialize()
        servers = [http_entry("web", url), stdio_server("local"), http_entry("down", "http://127.0.0.1:9/mcp")]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        await agent.client.wait_for(lambda updates: "down" in agent.client.text(sid))
        assert "MCP server 'down' failed to start" in agent.client.text(sid)
        await agent.prompt(sid, 'tool web__echo {"text": "from afar"}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["from afar"]
        await agent.prompt(sid, 'tool local__echo {"text": "from here"}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["from here"]
