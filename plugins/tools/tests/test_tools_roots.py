"""The session's directories: the core's ``session.real_roots`` when it resolved them, else one worker-thread call."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from langacp.api import SessionContext
from langacp.plugins import Plugins
from langacp_tools import diffs, plugin


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[Callable[..., Any]]:
    """Every function sent to a worker thread (``asyncio.to_thread``)."""
    sent: list[Callable[..., Any]] = []
    real = asyncio.to_thread

    async def counted(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        sent.append(func)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counted)
    return sent


@pytest.fixture
def linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    return tmp_path / "link", (tmp_path / "real").resolve()


async def test_the_roots_the_core_resolved_need_no_worker_thread(
    linked: tuple[Path, Path], hops: list[Callable[..., Any]]
) -> None:
    link, real = linked
    plugins = Plugins()
    plugins.register(plugin)
    session = SessionContext(session_id="s", cwd=str(link), plugins=plugins)
    await plugins.session_created(session)
    assert len(hops) == 1  # the core's (configuration and roots), none of the plugin's
    assert diffs.state(session).roots == [str(real)] == diffs.real_roots(session)


async def test_a_session_the_core_did_not_open_is_resolved_in_a_worker_thread(
    linked: tuple[Path, Path], hops: list[Callable[..., Any]]
) -> None:
    link, real = linked
    session = SessionContext(session_id="s", cwd=str(link))
    await plugin.langacp_session_loaded(session)
    assert hops == [diffs.real_roots]
    assert diffs.state(session).roots == [str(real)]
