"""Factory targets for the tests: one slow to build its graph (as one loading a model client), one failing."""

from __future__ import annotations

import asyncio
from typing import Any

from langacp import SessionSetup
from langacp.testing.agent import agent as scripted_agent


async def agent(setup: SessionSetup) -> Any:
    await asyncio.sleep(0.2)
    return scripted_agent(setup)


async def failing(setup: SessionSetup) -> Any:
    """A factory that fails after the plugins contributed (and started their servers)."""
    await asyncio.sleep(0.1)
    raise RuntimeError("this agent cannot be built")
