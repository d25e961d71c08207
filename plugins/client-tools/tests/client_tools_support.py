"""Helpers of the langacp-client-tools tests: the served agent, the two clients, what a client saw."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langacp.testing.calls import only_call, tool_prompt
from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent, serve_in_process

TARGET = "langacp.testing.agent:agent"
"""The scripted test agent: ``tool NAME {json}`` calls a tool; the plugin's tools are merged in."""


def editor(kind: str, **kwargs: Any) -> EditorClient:
    """``"editor"``: a client doing fs and terminal for real; ``"bare"``: one that declares neither."""
    enabled = kind == "editor"
    return EditorClient(fs=enabled, terminal=enabled, **kwargs)


def tool(name: str, **args: Any) -> str:
    return tool_prompt(name, **args)


@asynccontextmanager
async def served(
    workdir: Path,
    client: EditorClient,
    *,
    plugins: tuple[str, ...] = ("client-tools",),
    env: Mapping[str, str] | None = None,
    target: str = TARGET,
) -> AsyncIterator[ServedAgent]:
    try:
        async with serve_in_process(target, plugins=plugins, cwd=workdir, client=client, env=env) as agent:
            yield agent
    finally:
        await client.aclose()


async def run_tool(agent: ServedAgent, sid: str, name: str, **args: Any) -> dict[str, Any]:
    """One turn calling one tool; the call as the client saw it."""
    agent.client.updates.clear()
    assert await agent.prompt(sid, tool(name, **args)) == "end_turn"
    return only_call(agent.client.of(sid))
