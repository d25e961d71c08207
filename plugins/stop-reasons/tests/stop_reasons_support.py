"""Helpers of the stop-reasons tests."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langacp.testing.harness import ServedAgent, serve_in_process

HERE = Path(__file__).resolve().parent
AGENT = str(HERE / "stop_reasons_agent.py")
FIXTURE_SITE = HERE / "fixtures" / "site"


@asynccontextmanager
async def served(
    target: str = "agent",
    *,
    plugin: bool = True,
    fixture: bool = False,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    **kwargs: Any,
) -> AsyncIterator[ServedAgent]:
    """Serve the test agent with the plugin (and the fixture plugin standing in for others)."""
    plugins = [*(["stop_reasons"] if plugin else []), *(["stop_reasons_fixture"] if fixture else [])]
    child_env = {"XDG_CONFIG_HOME": str(HERE / "no-user-config"), **(env or {})}
    if fixture:
        child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(FIXTURE_SITE), os.environ.get("PYTHONPATH")]))
    spec = target if ":" in target else f"{AGENT}:{target}"
    async with serve_in_process(spec, plugins=plugins, env=child_env, cwd=cwd, **kwargs) as agent:
        yield agent
