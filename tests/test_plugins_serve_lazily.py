"""Serving a session with every plugin installed imports no optional feature's library it does not use.

What a process imports it keeps for its whole life (and every start pays for it): the MCP client
is imported only for a session with MCP servers, a store's driver only when its URL is used,
the remote client only with ``--remote``, the keyring only for authentication. This probe
initializes the agent with every installed plugin, opens a session without MCP servers on the
memory store, runs one turn, and lists which of those libraries were imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

OPTIONAL = (
    "mcp",
    "langchain_mcp_adapters",
    "aiosqlite",
    "langgraph.checkpoint.sqlite",
    "psycopg",
    "psycopg_pool",
    "langgraph.checkpoint.postgres",
    "keyring",
    "jsonschema",
)
"""Libraries only some features need (none of them is needed for a memory-store session without MCP)."""

PROBE = """
import asyncio, json, sys
from acp import PROTOCOL_VERSION, text_block
from acp.schema import AllowedOutcome, RequestPermissionResponse
from langacp.agent import LangacpAgent
from langacp.plugins import load_plugins

class Quiet:
    async def session_update(self, **_):
        return None

    async def request_permission(self, **_):
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))

async def go(target):
    agent = LangacpAgent(target, load_plugins(), store_url="memory")
    agent.on_connect(Quiet())
    await agent.initialize(protocol_version=PROTOCOL_VERSION)
    sid = (await agent.new_session(cwd=sys.argv[2], mcp_servers=[])).session_id
    response = await agent.prompt(session_id=sid, prompt=[text_block("echo hi")])
    await agent.close_session(session_id=sid)
    return response.stop_reason

stop = asyncio.run(go(sys.argv[1]))
print(json.dumps({"stop": stop, "imported": [m for m in json.loads(sys.argv[3]) if m in sys.modules]}))
"""


@pytest.mark.parametrize("attr", ["agent", "graph"])
def test_a_plain_session_imports_no_optional_library(attr: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # no user configuration (it could name MCP servers)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    result = subprocess.run(
        [sys.executable, "-c", PROBE, f"langacp.testing.agent:{attr}", str(tmp_path), json.dumps(OPTIONAL)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["stop"] == "end_turn", result.stderr[-3000:]
    assert report["imported"] == [], f"imported without being used: {report['imported']}"
