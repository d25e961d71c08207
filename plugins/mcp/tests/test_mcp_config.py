"""Servers configured for the agent itself: the user's config file always, a project's only when allowed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_support import SERVER, last_tool_call, read_pid, texts


def _server_toml(name: str, *extra: str, env: dict[str, str] | None = None) -> str:
    args = json.dumps([str(SERVER), "stdio", *extra])
    lines = [f"[mcp.servers.{name}]", f"command = {json.dumps(sys.executable)}", f"args = {args}"]
    if env:
        lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }")
    return "\n".join(lines) + "\n"


async def test_user_config_servers_start_for_every_session(serve_mcp, config_home: Path) -> None:
    (config_home / "langacp" / "config.toml").write_text(
        "[permissions]\nmode = 'ask'  # another plugin's table: ignored here\n\n"
        + _server_toml("mine", env={"GREETING": "${LANGACP_MCP_TEST_GREETING}!"})
    )
    async with serve_mcp(env={"LANGACP_MCP_TEST_GREETING": "hello"}) as agent:
        sid = await agent.start()
        await agent.prompt(sid, 'tool mine__env_value {"name": "GREETING"}')
        title, final, blocks = last_tool_call(agent.client, sid)
        assert (title, final.status, texts(blocks)) == ("env_value (mine)", "completed", ["hello!"])


async def test_the_clients_server_wins_over_a_configured_one_of_the_same_name(
    serve_mcp, config_home: Path, tmp_path: Path
) -> None:
    from mcp_support import stdio_server

    configured_pid, client_pid = tmp_path / "configured", tmp_path / "client"
    (config_home / "langacp" / "config.toml").write_text(_server_toml("s", "--pid-file", str(configured_pid)))
    async with serve_mcp() as agent:
        await agent.initialize()
        server = stdio_server("s", "--pid-file", str(client_pid))
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])).session_id
        await agent.prompt(sid, "tool s__pid {}")
        assert texts(last_tool_call(agent.client, sid)[2]) == [str(await read_pid(client_pid))]
        assert not configured_pid.exists()


async def test_project_servers_do_not_start_unless_allowed(serve_mcp, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    marker = tmp_path / "started"
    (project / ".langacp.toml").write_text(_server_toml("evil", "--pid-file", str(marker)))
    async with serve_mcp(cwd=project) as agent:
        sid = await agent.start()
        await agent.client.wait_for(lambda updates: "evil" in agent.client.text(sid))
        notice = agent.client.text(sid)
        assert "not started" in notice and "LANGACP_MCP_PROJECT_SERVERS=1" in notice
        await agent.prompt(sid, "tool evil__pid {}")
        assert last_tool_call(agent.client, sid)[1].status == "failed"  # no such tool
        assert not marker.exists()


async def test_project_servers_start_when_allowed(serve_mcp, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    (project / ".langacp.toml").write_text(_server_toml("proj"))
    async with serve_mcp(cwd=project, env={"LANGACP_MCP_PROJECT_SERVERS": "1"}) as agent:
        sid = await agent.start()
        await agent.prompt(sid, 'tool proj__add {"a": 1, "b": 2}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["3"]


async def test_a_broken_config_file_is_reported_and_the_session_opens(serve_mcp, config_home: Path) -> None:
    (config_home / "langacp" / "config.toml").write_text("[mcp.servers.x\ncommand = ")
    async with serve_mcp() as agent:
        sid = await agent.start()
        await agent.client.wait_for(lambda updates: "config.toml" in agent.client.text(sid))
        assert "cannot read" in agent.client.text(sid)
        assert await agent.prompt(sid, "echo ok") == "end_turn"


async def test_a_project_servers_env_never_gets_the_agents_secrets(serve_mcp, tmp_path: Path) -> None:
    """``${VAR}`` is filled in from the agent's environment for the user's file only, not a project's."""
    project = tmp_path / "repo"
    project.mkdir()
    (project / ".langacp.toml").write_text(_server_toml("proj", env={"MY_TOKEN": "${AGENT_ONLY_SECRET}"}))
    env = {"LANGACP_MCP_PROJECT_SERVERS": "1", "AGENT_ONLY_SECRET": "hunter2"}
    async with serve_mcp(cwd=project, env=env, subprocess=True) as agent:  # real pipes
        sid = await agent.start()
        await agent.prompt(sid, 'tool proj__env_value {"name": "MY_TOKEN"}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["${AGENT_ONLY_SECRET}"]
