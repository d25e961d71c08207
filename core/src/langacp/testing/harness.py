"""Run ``langacp serve`` as a subprocess and drive it over real pipes: for plugin authors' tests.

    async with serve("langacp.testing.agent:agent", plugins=["my_plugin"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        titles = [u.title for u in agent.client.of(sid, "tool_call")]

With ``isolate=True`` (the default) plugin autoload is off and only ``plugins`` are loaded, so
whatever else is installed does not leak into the test. ``XDG_DATA_HOME`` points into a
temporary directory, so the default session store never touches the user's sessions.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from acp import text_block
from acp.client.connection import ClientSideConnection
from acp.schema import InitializeResponse

from langacp.client import RecordingClient, spawn_agent

__all__ = ["DEFAULT_TARGET", "ServedAgent", "serve", "serve_command", "write_project_config", "write_user_config"]

DEFAULT_TARGET = "langacp.testing.agent:agent"


@dataclass
class ServedAgent:
    """A live ``langacp serve`` subprocess and the recording client connected to it."""

    conn: ClientSideConnection
    process: object
    client: RecordingClient
    stderr_path: Path
    cwd: Path

    def stderr(self) -> str:
        """What the agent logged so far."""
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    async def initialize(self) -> InitializeResponse:
        """``initialize``, declaring the client's ``client_capabilities`` if it has them (an ``EditorClient``)."""
        capabilities = getattr(self.client, "client_capabilities", None)
        return await self.conn.initialize(protocol_version=1, client_capabilities=capabilities)

    async def new_session(self, cwd: str | None = None) -> str:
        return (await self.conn.new_session(cwd=cwd or str(self.cwd))).session_id

    async def start(self) -> str:
        """``initialize`` then ``session/new`` in this agent's working directory."""
        await self.initialize()
        return await self.new_session()

    async def prompt(self, session_id: str, text: str) -> str:
        """Send a text prompt; returns the stop reason."""
        response = await self.conn.prompt(session_id=session_id, prompt=[text_block(text)])
        return str(response.stop_reason)


def serve_command(target: str = DEFAULT_TARGET, *args: str, plugins: Sequence[str] = ()) -> list[str]:
    """The command line that serves ``target`` with ``plugins`` enabled by name."""
    enable = [arg for name in plugins for arg in ("-p", name)]
    return [sys.executable, "-m", "langacp.cli", "serve", target, *enable, *args]


@asynccontextmanager
async def serve(
    target: str = DEFAULT_TARGET,
    *,
    plugins: Sequence[str] = (),
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    client: RecordingClient | None = None,
    cwd: str | Path | None = None,
    isolate: bool = True,
) -> AsyncIterator[ServedAgent]:
    """Serve ``target`` in a subprocess; its stderr goes to a file (``agent.stderr()``)."""
    child_env = {k: v for k, v in os.environ.items() if not (isolate and k.startswith("LANGACP_"))}
    if isolate:
        child_env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    recorder = client or RecordingClient()
    with tempfile.TemporaryDirectory(prefix="langacp-test-") as tmp:
        # The default session store (sqlite, when installed) writes under XDG_DATA_HOME: never the user's own.
        child_env["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        child_env.update(env or {})
        workdir = Path(cwd) if cwd is not None else Path(tmp) / "work"
        workdir.mkdir(parents=True, exist_ok=True)
        stderr_path = Path(tmp) / "agent.stderr"
        with stderr_path.open("w") as stderr:
            async with spawn_agent(
                serve_command(target, *args, plugins=plugins), recorder, env=child_env, stderr=stderr
            ) as (conn, process):
                yield ServedAgent(conn, process, recorder, stderr_path, workdir)


def write_user_config(home: Path, text: str) -> Path:
    """Write ``text`` as the user config under ``home`` (use ``XDG_CONFIG_HOME=home/"config"``)."""
    path = home / "config" / "langacp" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_project_config(home: Path, text: str) -> Path:
    """Write ``text`` as ``home/"project"/.langacp.toml``, the project config of a session in ``home/"project"``."""
    path = home / "project" / ".langacp.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
