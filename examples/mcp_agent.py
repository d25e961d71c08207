"""An agent whose tools come from an MCP server (needs ``pip install -e ./plugins/mcp``).

This one file is three things:

* ``agent``: a per-session factory to serve (``langacp serve examples/mcp_agent.py:agent``).
  It has no tools of its own: langacp-mcp connects the session's MCP servers and adds their
  tools as ``<server>__<tool>``.
* ``python examples/mcp_agent.py server``: a small MCP server (FastMCP over stdio) with a
  notebook: ``add_note`` and ``list_notes``.
* ``python examples/mcp_agent.py``: a demo. It spawns ``langacp serve`` as an editor would,
  hands it the server above in ``session/new`` (``mcpServers``), sends two prompts and prints
  what comes back.

Without ``LANGACP_MODEL`` the scripted offline model is used: it reads prompts such as
``tool notes__add_note {"text": "buy milk"}`` as commands. With ``LANGACP_MODEL`` set to an
``init_chat_model`` string (provider package installed, API key set) a real model decides.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from langacp import SessionSetup

HERE = Path(__file__).resolve()


def _model() -> Any:
    name = os.environ.get("LANGACP_MODEL")
    if name:
        from langchain.chat_models import init_chat_model

        return init_chat_model(name)
    from langacp.testing.agent import make_model

    return make_model()


def agent(setup: SessionSetup) -> Any:
    """Called once per ACP session; ``setup.tools`` holds the MCP servers' tools."""
    return setup.create_agent(_model(), system_prompt="You keep the user's notes with the notebook tools.")


def run_server() -> None:
    """The MCP server: a notebook kept in memory for as long as the session lasts."""
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("notes", log_level="WARNING")
    notes: list[str] = []

    @server.tool()
    def add_note(text: str) -> str:
        """Add a note to the notebook."""
        notes.append(text)
        return f"noted ({len(notes)} so far)"

    @server.tool()
    def list_notes() -> str:
        """Every note, one per line."""
        return "\n".join(f"- {note}" for note in notes) or "(no notes)"

    server.run("stdio")


async def demo() -> int:
    from acp import text_block
    from acp.schema import McpServerStdio

    from langacp.client import RecordingClient, spawn_agent

    client = RecordingClient()
    command = [sys.executable, "-m", "langacp.cli", "serve", f"{HERE}:agent"]
    notes = McpServerStdio(name="notes", command=sys.executable, args=[str(HERE), "server"], env=[])
    async with spawn_agent(command, client, env=dict(os.environ)) as (conn, _process):
        await conn.initialize(protocol_version=1)
        session_id = (await conn.new_session(cwd=os.getcwd(), mcp_servers=[notes])).session_id
        for prompt in ('tool notes__add_note {"text": "buy milk"}', "tool notes__list_notes {}"):
            print(f"> {prompt}")
            seen = len(client.updates)
            response = await conn.prompt(session_id=session_id, prompt=[text_block(prompt)])
            for _, update in client.updates[seen:]:
                if update.session_update == "tool_call":
                    print(f"  [tool call] {update.title}")
                elif update.session_update == "tool_call_update" and update.status in ("completed", "failed"):
                    print(f"  [{update.status}]")
                elif update.session_update == "agent_message_chunk":
                    print(f"  {update.content.text}")
            print(f"  (stop reason: {response.stop_reason})")
        await conn.close_session(session_id=session_id)  # stops the MCP server process
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["server"]:
        run_server()
    elif not sys.argv[1:]:
        sys.exit(asyncio.run(demo()))
    else:
        sys.exit(__doc__)
