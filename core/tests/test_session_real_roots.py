"""``await session.roots()``: the session's directories as real paths, resolved once off the event loop."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from langacp.api import SessionPaths, hookimpl
from langacp.plugins import Plugins
from langacp.trust import ConfigLayers, SessionLayers
from langacp.types import SessionContext


@pytest.fixture
def linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project and an extra directory, both named through symbolic links."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "real" / "project").mkdir(parents=True)
    (tmp_path / "real" / "extra").mkdir()
    (tmp_path / "project").symlink_to(tmp_path / "real" / "project")
    (tmp_path / "extra").symlink_to(tmp_path / "real" / "extra")
    return tmp_path / "project", tmp_path / "extra"


@pytest.fixture
def resolving(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The thread of every ``os.path.realpath`` call from here on."""
    threads: list[int] = []
    real = os.path.realpath

    def counted(path: str | os.PathLike[str], **kwargs: bool) -> str:
        threads.append(threading.get_ident())
        return real(path, **kwargs)

    monkeypatch.setattr(os.path, "realpath", counted)
    return threads


class Seen:
    def __init__(self, resolving: list[int]) -> None:
        self.resolving = resolving

    @hookimpl
    async def langacp_session_created(self, session: SessionContext) -> None:
        before = len(self.resolving)
        self.roots = await session.roots()
        self.resolved_here = len(self.resolving) - before


async def test_resolved_off_the_loop_before_the_first_hook(linked: tuple[Path, Path], resolving: list[int]) -> None:
    project, extra = linked
    expected = tuple(SessionPaths(str(project), [str(extra)]).roots)
    resolving.clear()
    plugins, seen = Plugins(), Seen(resolving)
    plugins.register(seen)
    session = SessionContext(session_id="s", cwd=str(project), additional_directories=[str(extra)], plugins=plugins)
    await plugins.session_created(session)
    assert resolving and threading.get_ident() not in resolving  # never on the event loop's thread
    assert seen.roots == expected and seen.resolved_here == 0  # the hook found them resolved
    assert expected == (str(project.resolve()), str(extra.resolve())) != (str(project), str(extra))

    parent = str(project.parent.resolve())
    resolving.clear()
    assert await session.roots() == expected and resolving == []  # kept
    session.additional_directories.append(str(project.parent))  # not what was resolved: resolved again
    assert await session.roots() == (*expected, parent)
    assert len(resolving) == 3 and threading.get_ident() not in resolving


async def test_a_session_the_core_did_not_open_resolves_them_off_the_loop_once(
    linked: tuple[Path, Path], resolving: list[int]
) -> None:
    project, _ = linked
    plugins = Plugins()
    session = SessionContext(session_id="s", cwd=str(project), plugins=plugins)
    session.scratch(SessionLayers).layers = ConfigLayers()
    await plugins.session_created(session)  # the layers were given: open_layers makes no worker-thread call
    assert resolving == []
    assert await session.roots() == await session.roots()
    assert len(resolving) == 1 and threading.get_ident() not in resolving
    assert await session.roots() == (str(project.resolve()),)
