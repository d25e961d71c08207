"""A factory target that takes a moment to build its graph (as one that loads a model client would)."""

from __future__ import annotations

import asyncio
from typing import Any

from langacp import SessionSetup
from langacp.testing.agent import agent as scripted_agent


async def agent(setup: SessionSetup) -> Any:
    await asyncio.sleep(0.2)
    return scripted_agent(setup)
