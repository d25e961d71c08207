"""On the wire: a failure notice is sent after the session/new response that names the session."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from langacp.testing.harness import serve_command

REPO = Path(__file__).resolve().parents[3]
SLOW_TARGET = f"{Path(__file__).resolve().with_name('mcp_slow_target.py')}:agent"


async def _request(process: asyncio.subprocess.Process, msg_id: int, method: str, params: dict[str, Any]) -> None:
    assert process.stdin is not None
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    process.stdin.write(json.dumps(message).encode() + b"\n")
    await process.stdin.drain()


async def test_the_notice_follows_the_response(config_home: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env.update(LANGACP_DISABLE_PLUGIN_AUTOLOAD="1", XDG_CONFIG_HOME=str(config_home))
    with (tmp_path / "stderr").open("w") as stderr:
        process = await asyncio.create_subprocess_exec(
            # The factory takes 0.2 s after the servers were connected: time enough for a notice
            # sent at once to overtake the response.
            *serve_command(SLOW_TARGET, plugins=["mcp"]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
        )
        try:
            await _request(process, 1, "initialize", {"protocolVersion": 1})
            bad = {"name": "bad", "command": "/nonexistent/mcp-server", "args": [], "env": []}
            await _request(process, 2, "session/new", {"cwd": str(tmp_path), "mcpServers": [bad]})
            lines: list[dict[str, Any]] = []
            assert process.stdout is not None
            while not any(m.get("method") == "session/update" for m in lines):
                line = await asyncio.wait_for(process.stdout.readline(), 30)
                assert line, "the agent closed stdout"
                lines.append(json.loads(line))
        finally:
            process.kill()
            await process.wait()
    order = [m.get("id", m.get("method")) for m in lines]
    assert order.index(2) < order.index("session/update")
    [response] = [m for m in lines if m.get("id") == 2]
    [notice] = [m for m in lines if m.get("method") == "session/update"]
    assert notice["params"]["sessionId"] == response["result"]["sessionId"]
    assert "MCP server 'bad' failed to start" in notice["params"]["update"]["content"]["text"]


def test_the_example_agent_runs_its_mcp_server(config_home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env.update(LANGACP_DISABLE_PLUGIN_AUTOLOAD="1", XDG_CONFIG_HOME=str(config_home))
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "mcp_agent.py")],
        env={**env, "LANGACP_DISABLE_PLUGIN_AUTOLOAD": "0"},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert "[completed]" in done.stdout
    assert "done: - buy milk" in done.stdout
