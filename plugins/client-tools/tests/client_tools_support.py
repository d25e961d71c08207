"""Helpers of the langacp-client-tools tests: the served agent, the two clients, what a client saw."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent, serve

TARGET = "langacp.testing.agent:agent"
"""The scripted test agent: ``tool NAME {json}`` calls a tool; the plugin's tools are merged in."""


def editor(kind: str, **kwargs: Any) -> EditorClient:
    """``"editor"``: a client doing fs and terminal for real; ``"bare"``: one that declares neither."""
    enabled = kind == "editor"
    return EditorClient(fs=enabled, terminal=enabled, **kwargs)


def tool(name: str, **args: Any) -> str:
    return f"tool {name} {json.dumps(args)}"


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
        async with serve(target, plugins=plugins, cwd=workdir, client=client, env=env) as agent:
            yield agent
    finally:
        await client.aclose()


def tool_calls(updates: list[Any]) -> dict[str, dict[str, Any]]:
    """Per tool call id: fields as the client last saw them, plus ``statuses`` and ``contents``."""
    calls: dict[str, dict[str, Any]] = {}
    for update in updates:
        if update.session_update not in ("tool_call", "tool_call_update"):
            continue
        seen = calls.setdefault(update.tool_call_id, {"statuses": [], "contents": []})
        for field in ("title", "kind", "locations", "raw_input", "raw_output"):
            value = getattr(update, field, None)
            if value is not None:
                seen[field] = value
        if update.status is not None:
            seen["statuses"].append(update.status)
        if update.content:
            seen["contents"].append(update.content)
    return calls


def only_call(updates: list[Any]) -> dict[str, Any]:
    calls = tool_calls(updates)
    assert len(calls) == 1, calls
    return next(iter(calls.values()))


def result_text(call: dict[str, Any]) -> str:
    """The text the tool returned (what the model reads)."""
    output = call.get("raw_output")
    return output if isinstance(output, str) else json.dumps(output)


async def run_tool(agent: ServedAgent, sid: str, name: str, **args: Any) -> dict[str, Any]:
    """One turn calling one tool; the call as the client saw it."""
    agent.client.updates.clear()
    assert await agent.prompt(sid, tool(name, **args)) == "end_turn"
    return only_call(agent.client.of(sid))


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_until_gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    """Poll until none of ``pids`` is alive; returns those still alive at the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if not any(alive(pid) for pid in pids):
            return []
        await asyncio.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


async def eventually(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll until ``predicate()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("the condition never held")
        await asyncio.sleep(0.05)


async def wait_for_file(path: Path, timeout: float = 15.0) -> str:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} was never written")
