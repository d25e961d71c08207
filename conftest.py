"""For the tests of every package: the developer's own langacp files are never read or written.

Agents started by tests inherit this environment, so a user's ``~/.config/langacp/config.toml``
cannot change a test's outcome and no test writes to ``~/.local/share/langacp/sessions.db``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[Callable[..., Any]]:
    """Every function a test's code sends to a worker thread (``asyncio.to_thread``), in order."""
    sent: list[Callable[..., Any]] = []
    real = asyncio.to_thread

    async def counted(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        sent.append(func)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counted)
    return sent


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """A directory named through a symbolic link, and its real path."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    return tmp_path / "link", (tmp_path / "real").resolve()
