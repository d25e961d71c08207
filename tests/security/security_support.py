"""Shared helpers of the security tests: the agent served with every plugin, one tool call per turn."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langacp.client import RecordingClient
from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent, serve

HERE = Path(__file__).parent
AGENT = str(HERE / "security_agent.py")
ALL_PLUGINS = [
    "client-tools",
    "commands",
    "content",
    "mcp",
    "modes",
    "permissions",
    "plans",
    "stop_reasons",
    "titles",
    "tools",
    "usage",
]


@asynccontextmanager
async def served(
    workdir: Path,
    home: Path,
    client: RecordingClient,
    *,
    target: str = "plain",
    plugins: list[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> AsyncIterator[ServedAgent]:
    """The security agent ``target`` with ``plugins`` (default: all), the user config under ``home``."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    child_env = {"XDG_CONFIG_HOME": str(home / "config"), "HOME": str(home), **(env or {})}
    try:
        async with serve(
            f"{AGENT}:{target}", plugins=plugins or ALL_PLUGINS, cwd=workdir, client=client, env=child_env
        ) as agent:
            yield agent
    finally:
        if isinstance(client, EditorClient):
            await client.aclose()


async def call(agent: ServedAgent, sid: str, name: str, **args: Any) -> dict[str, Any]:
    """One turn calling one tool: the call's last status, kind, title, raw output, as the client saw them."""
    start = len(agent.client.updates)
    assert await agent.prompt(sid, f"tool {name} {json.dumps(args)}") == "end_turn"
    seen: dict[str, Any] = {"statuses": []}
    for session, update in agent.client.updates[start:]:
        if session != sid:
            continue
        if update.session_update in ("tool_call", "tool_call_update"):
            for field in ("title", "kind", "raw_output"):
                if getattr(update, field, None) is not None:
                    seen[field] = getattr(update, field)
            if update.status is not None:
                seen["statuses"].append(update.status)
    seen["status"] = seen["statuses"][-1] if seen["statuses"] else None
    return seen
