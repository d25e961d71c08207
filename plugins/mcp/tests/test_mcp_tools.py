"""MCP servers from session/new become the agent's tools, over a real stdio server process."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcp_support import last_tool_call, read_pid, stdio_server, texts

from langacp.plugins import load_plugins


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=False, enabled=["mcp"])
    [record] = [r for r in plugins.records if r.name == "mcp"]
    assert record.status == "loaded"
    assert record.distribution == "langacp-mcp"
    assert "langacp_session_tools" in record.hooks


async def test_initialize_advertises_http_and_sse(serve_mcp) -> None:
    async with serve_mcp() as agent:
        capabilities = (await agent.initialize()).agent_capabilities
        assert capabilities is not None and capabilities.mcp_capabilities is not None
        assert capabilities.mcp_capabilities.http is True
        assert capabilities.mcp_capabilities.sse is True


async def test_a_stdio_servers_tools_run_under_qualified_names(serve_mcp, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    async with serve_mcp() as agent:
        await agent.initialize()
        sid = (
            await agent.conn.new_session(
                cwd=str(agent.cwd), mcp_servers=[stdio_server("calc", "--pid-file", str(pid_file))]
            )
        ).session_id
        assert await agent.prompt(sid, 'tool calc__add {"a": 2, "b": 3}') == "end_turn"
        title, final, blocks = last_tool_call(agent.client, sid)
        assert title == "add (calc)"
        assert final.status == "completed"
        assert texts(blocks) == ["5"]
        assert agent.client.text(sid).endswith("done: 5")

        # One persistent server process for the session, not one per call.
        await agent.prompt(sid, "tool calc__pid {}")
        first = texts(last_tool_call(agent.client, sid)[2])
        await agent.prompt(sid, "tool calc__pid {}")
        assert texts(last_tool_call(agent.client, sid)[2]) == first == [str(await read_pid(pid_file))]


async def test_the_server_runs_in_the_session_cwd(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[stdio_server("s")])).session_id
        await agent.prompt(sid, "tool s__cwd {}")
        assert texts(last_tool_call(agent.client, sid)[2]) == [os.path.realpath(agent.cwd)]


async def test_a_stdio_server_gets_the_requested_env_and_a_minimal_base(serve_mcp) -> None:
    async with serve_mcp(env={"AGENT_ONLY_SECRET": "hunter2"}) as agent:
        await agent.initialize()
        server = stdio_server("envy", env={"MY_TOKEN": "t0k", "LANG": "C.UTF-8"})
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])).session_id
        await agent.prompt(sid, "tool envy__env_keys {}")
        keys = set(texts(last_tool_call(agent.client, sid)[2])[0].split(","))
        assert "MY_TOKEN" in keys and "PATH" in keys
        assert "AGENT_ONLY_SECRET" not in keys
        assert not any(k.startswith("LANGACP_") for k in keys)
        base = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"}
        assert keys <= base | {"MY_TOKEN"}
        await agent.prompt(sid, 'tool envy__env_value {"name": "MY_TOKEN"}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["t0k"]


async def test_images_and_embedded_resources_reach_the_editor_as_acp_content(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[stdio_server("media")])).session_id
        await agent.prompt(sid, "tool media__picture {}")
        _, final, blocks = last_tool_call(agent.client, sid)
        assert final.status == "completed"
        assert [b.type for b in blocks] == ["text", "image"]
        assert blocks[1].mime_type == "image/png" and blocks[1].data.startswith("iVBORw0KGgo")
        assert agent.client.text(sid).endswith("done: a red pixel")  # the model read the caption

        await agent.prompt(sid, "tool media__document {}")
        _, final, [block] = last_tool_call(agent.client, sid)
        assert block.type == "resource"
        assert block.resource.uri == "file:///notes/todo.md"
        assert block.resource.mime_type == "text/markdown"
        assert block.resource.text == "# TODO\n- ship"


async def test_an_mcp_tool_error_is_a_failed_tool_call_and_the_turn_goes_on(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[stdio_server("s")])).session_id
        assert await agent.prompt(sid, f"tool s__fail {json.dumps({'message': 'disk on fire'})}") == "end_turn"
        _, final, blocks = last_tool_call(agent.client, sid)
        assert final.status == "failed"
        assert any("disk on fire" in t for t in texts(blocks))
        assert "disk on fire" in agent.client.text(sid)  # the model was told


async def test_two_servers_in_one_session_keep_their_tools_apart(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        servers = [stdio_server("one"), stdio_server("two.dot")]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        await agent.prompt(sid, "tool one__pid {}")
        first = texts(last_tool_call(agent.client, sid)[2])
        await agent.prompt(sid, "tool two_dot__pid {}")  # '.' is not allowed in tool names
        title, _, blocks = last_tool_call(agent.client, sid)
        assert title == "pid (two.dot)"
        assert texts(blocks) != first


async def test_a_precompiled_graph_says_its_servers_were_not_started(serve_mcp, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    async with serve_mcp(target="langacp.testing.agent:graph") as agent:
        await agent.initialize()
        server = stdio_server("s", "--pid-file", str(pid_file))
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])).session_id
        assert await agent.prompt(sid, "echo hi") == "end_turn"
        assert "MCP servers of this session were not started" in agent.client.text(sid)
        assert not pid_file.exists()
        await agent.prompt(sid, "echo again")
        assert agent.client.text(sid).count("not started") == 1


async def test_a_server_listed_twice_is_started_once(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        servers = [stdio_server("s"), stdio_server("s")]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        await agent.client.wait_for(lambda updates: "listed twice" in agent.client.text(sid))
        await agent.prompt(sid, 'tool s__add {"a": 1, "b": 1}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["2"]


async def test_server_instructions_reach_the_system_prompt(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        servers = [stdio_server("calc"), stdio_server("bad").model_copy(update={"command": "/nonexistent"})]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        await agent.prompt(sid, "sysprompt")
        prompt = agent.client.text(sid)
        assert "You are a scripted test agent." in prompt
        assert "Instructions of the MCP server 'calc' (tools calc__*):\nCall add for arithmetic." in prompt
        assert "MCP server 'bad' (tools" not in prompt
