"""Fixtures of langacp-mcp's tests: an agent served with the plugin, isolated from the user's config."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from langacp.testing.harness import ServedAgent, serve, serve_in_process


@pytest.fixture
def config_home(tmp_path: Path) -> Path:
    """``XDG_CONFIG_HOME`` of the served agent: the user config file is ``langacp/config.toml`` in it."""
    home = tmp_path / "xdg"
    (home / "langacp").mkdir(parents=True)
    return home


@pytest.fixture
def serve_mcp(config_home: Path) -> Callable[..., AbstractAsyncContextManager[ServedAgent]]:
    """``async with serve_mcp(env={...}) as agent``: the scripted agent with the ``mcp`` plugin.

    In this process; ``subprocess=True`` serves ``langacp serve`` over real pipes instead.
    """

    @asynccontextmanager
    async def _serve(
        env: dict[str, str] | None = None, *, subprocess: bool = False, **kwargs: Any
    ) -> AsyncIterator[ServedAgent]:
        serve_with = serve if subprocess else serve_in_process
        async with serve_with(
            plugins=["mcp"], env={"XDG_CONFIG_HOME": str(config_home), **(env or {})}, **kwargs
        ) as agent:
            yield agent

    return _serve
