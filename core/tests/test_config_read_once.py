"""The configuration files are read once per session, off the event loop, before any plugin's session hook.

Sessions of one working directory share the layers read for an earlier one while neither file
changes; a changed file (even one of the same size and modification time) is read again for
the next session.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import langacp.trust
from langacp.api import hookimpl, layers_for
from langacp.plugins import Plugins
from langacp.trust import ConfigLayers, SessionLayers
from langacp.types import SessionContext

OLD = 30.0
"""Seconds in the past the tests date their files (older than the racy window, see ``RACY_NS``)."""


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every ``load_layers`` call: (working directory, thread id)."""
    calls: list[tuple[str, int]] = []
    real = langacp.trust.load_layers

    def counted(cwd: str) -> ConfigLayers:
        calls.append((cwd, threading.get_ident()))
        return real(cwd)

    monkeypatch.setattr(langacp.trust, "load_layers", counted)
    return calls


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "langacp").mkdir(parents=True)
    directory = tmp_path / "project"
    directory.mkdir()
    return directory


def write(path: Path, text: str, *, age: float = OLD, mtime_ns: int | None = None) -> None:
    path.write_text(text, encoding="utf-8")
    stamp = mtime_ns if mtime_ns is not None else time.time_ns() - int(age * 1e9)
    os.utime(path, ns=(stamp, stamp))


class Seen:
    """A plugin whose synchronous session hook records what it finds."""

    def __init__(self) -> None:
        self.layers: list[Any] = []

    @hookimpl
    def langacp_session_created(self, session: SessionContext) -> None:
        self.layers.append(session.scratch(SessionLayers).layers)


async def opened(plugins: Plugins, cwd: Path) -> SessionContext:
    session = SessionContext(session_id="s", cwd=str(cwd), plugins=plugins)
    await plugins.session_created(session)
    return session


async def test_read_in_a_worker_thread_before_the_first_hook(project: Path, reads: list[tuple[str, int]]) -> None:
    write(project / ".langacp.toml", "[plans]\nbuiltin_tool = false\n")
    plugins, seen = Plugins(), Seen()
    plugins.register(seen)
    session = await opened(plugins, project)
    assert [cwd for cwd, _ in reads] == [str(project)]
    assert reads[0][1] != threading.get_ident()  # not on the event loop's thread
    assert seen.layers == [layers_for(session)]  # a synchronous hook finds them in place
    assert layers_for(session).merged("plans") == {"builtin_tool": False}


async def test_sessions_share_one_read_until_a_file_changes(project: Path, reads: list[tuple[str, int]]) -> None:
    plugins = Plugins()
    path = project / ".langacp.toml"
    write(path, "[plans]\nbuiltin_tool = false\n")
    first = [layers_for(await opened(plugins, project)) for _ in range(5)]
    assert len(reads) == 1 and all(layers is first[0] for layers in first)

    write(path, "[plans]\nbuiltin_tool = true\n")  # another size
    assert layers_for(await opened(plugins, project)).merged("plans") == {"builtin_tool": True}
    assert len(reads) == 2

    user = project.parent / "xdg" / "langacp" / "config.toml"
    write(user, "[plans]\nkeep = 1\n")  # the user's file appears
    assert layers_for(await opened(plugins, project)).merged("plans") == {"keep": 1, "builtin_tool": True}
    assert len(reads) == 3
    user.unlink()
    assert layers_for(await opened(plugins, project)).merged("plans") == {"builtin_tool": True}
    assert len(reads) == 4


async def test_a_change_of_the_same_size_and_time_is_seen(project: Path, reads: list[tuple[str, int]]) -> None:
    plugins = Plugins()
    path = project / ".langacp.toml"
    write(path, "[plans]\nbuiltin_tool = false\n")
    stamp = path.stat().st_mtime_ns
    assert layers_for(await opened(plugins, project)).merged("plans") == {"builtin_tool": False}
    time.sleep(0.02)  # the change time moves on (it cannot be set back)
    write(path, "[plans]\nbuiltin_tool = 12345\n", mtime_ns=stamp)  # same size, same modification time
    assert path.stat().st_size == len("[plans]\nbuiltin_tool = false\n")
    assert layers_for(await opened(plugins, project)).merged("plans") == {"builtin_tool": 12345}
    assert len(reads) == 2


async def test_a_file_changed_just_now_is_read_again(project: Path, reads: list[tuple[str, int]]) -> None:
    """Within the file system's timestamp granularity a second change would not show: not kept."""
    plugins = Plugins()
    write(project / ".langacp.toml", "[plans]\nbuiltin_tool = false\n", age=0)
    await opened(plugins, project)
    await opened(plugins, project)
    assert len(reads) == 2


async def test_a_problem_is_logged_once_when_a_file_just_changed_is_read_again(
    project: Path, reads: list[tuple[str, int]], caplog: pytest.LogCaptureFixture
) -> None:
    """Read again for each session (the racy window), the same file's problem is still one line on stderr."""
    plugins = Plugins()
    write(project / ".langacp.toml", '[permissions.kinds]\nedit = "allow"\n', age=0)
    for _ in range(3):
        await opened(plugins, project)
    assert len(reads) == 3
    logged = [r.getMessage() for r in caplog.records if "allow" in r.getMessage()]
    assert len(logged) == 1 and 'edit = "allow"' in logged[0], caplog.text
    write(project / ".langacp.toml", '[permissions.kinds]\nexecute = "allow"\n', age=0)
    await opened(plugins, project)
    logged = [r.getMessage() for r in caplog.records if "allow" in r.getMessage()]
    assert len(logged) == 2 and 'execute = "allow"' in logged[1], "a changed file's problem is told"


async def test_layers_a_session_already_has_are_kept(project: Path, reads: list[tuple[str, int]]) -> None:
    plugins = Plugins()
    given = ConfigLayers(user={"plans": {"builtin_tool": False}})
    session = SessionContext(session_id="s", cwd=str(project), plugins=plugins)
    session.scratch(SessionLayers).layers = given
    await plugins.session_created(session)
    assert layers_for(session) is given and reads == []


async def test_a_notice_is_shown_to_every_session(project: Path) -> None:
    """The layers are shared, the notices are not lost: each session's editor is told."""
    plugins = Plugins()
    write(project / ".langacp.toml", '[permissions.kinds]\nedit = "allow"\n')
    for _ in range(2):
        sent: list[Any] = []

        async def send(update: Any, sent: list[Any] = sent) -> None:
            sent.append(update)

        session = SessionContext(session_id="s", cwd=str(project), plugins=plugins, send_update=send)
        await plugins.session_created(session)
        [notice] = sent
        assert 'edit = "allow"' in notice.content.text
