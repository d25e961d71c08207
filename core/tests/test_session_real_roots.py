"""``SessionContext.real_roots``: the session's directories, resolved in open_layers' worker thread."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from langacp.api import SessionPaths, hookimpl
from langacp.plugins import Plugins
from langacp.trust import STATE_KEY, ConfigLayers
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


class Seen:
    @hookimpl
    def langacp_session_created(self, session: SessionContext) -> None:
        self.roots = session.real_roots


async def test_resolved_off_the_loop_before_the_first_hook(
    linked: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, extra = linked
    threads: list[int] = []
    real = os.path.realpath

    def counted(path: str | os.PathLike[str], **kwargs: bool) -> str:
        threads.append(threading.get_ident())
        return real(path, **kwargs)

    plugins, seen = Plugins(), Seen()
    plugins.register(seen)
    session = SessionContext(session_id="s", cwd=str(project), additional_directories=[str(extra)], plugins=plugins)
    assert session.real_roots is None
    expected = tuple(SessionPaths(str(project), [str(extra)]).roots)
    monkeypatch.setattr(os.path, "realpath", counted)
    await plugins.session_created(session)
    assert threads and threading.get_ident() not in threads  # never on the event loop's thread
    assert seen.roots == session.real_roots == expected
    assert expected == (str(project.resolve()), str(extra.resolve())) != (str(project), str(extra))

    session.additional_directories.append(str(project.parent))  # not what was resolved: not claimed
    assert session.real_roots is None


async def test_none_when_the_core_did_not_open_the_session(linked: tuple[Path, Path]) -> None:
    project, _ = linked
    plugins = Plugins()
    given = ConfigLayers()
    session = SessionContext(session_id="s", cwd=str(project), plugins=plugins, state={STATE_KEY: given})
    await plugins.session_created(session)  # the layers were given: open_layers makes no worker-thread call
    assert session.real_roots is None
