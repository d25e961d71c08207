"""``langacp.lib.load_mcp_tools``: the tools of a session's MCP servers (a real stdio server process)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from acp.schema import McpServerStdio

from langacp.lib import close_session, load_mcp_tools, open_session
from langacp.plugins import load_plugins

pytest.importorskip("langacp_mcp")

MCP_SERVER = Path(__file__).resolve().parents[1] / "plugins" / "mcp" / "tests" / "mcp_server.py"


class Conn:
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        pass


async def test_load_mcp_tools_gives_the_session_servers_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    conn = Conn()
    entry = McpServerStdio(name="calc", command=sys.executable, args=[str(MCP_SERVER), "stdio"], env=[])
    session = await open_session(
        conn, "s1", str(tmp_path), mcp_servers=[entry], plugins=load_plugins(enabled=["mcp"], autoload=False)
    )
    try:
        tools = {tool.name: tool for tool in load_mcp_tools(session)}
        assert {"calc__add", "calc__echo"} <= set(tools)
        assert set(tools) <= {tool.name for tool in session.tools}
        result = await tools["calc__add"].ainvoke({"a": 2, "b": 3})
        assert "5" in str(result)
    finally:
        await close_session(conn, "s1")


async def test_load_mcp_tools_without_servers_is_empty(tmp_path: Path) -> None:
    session = await open_session(Conn(), "s2", str(tmp_path), plugins=load_plugins(enabled=["mcp"], autoload=False))
    assert load_mcp_tools(session) == []
