"""What the editor offers a session (``fs.readTextFile``, ``fs.writeTextFile``, ``terminal``) and where a path may go.

Every path is confined by :class:`langacp.paths.SessionPaths` *before* the user is asked
(the tools' ``langacp_check``) and again when the tool runs, before anything is asked of the
editor or done locally: a path outside the session's directories is never sent, and the
editor is sent the real path that was checked, never a path through a link. Resolving a path
touches the file system, so it is done in a worker thread (:func:`locate`), never on the
event loop: a hung mount holds up the call, not the other sessions.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import ToolException

from langacp.api import PathError, SessionContext, SessionPaths

__all__ = ["ClientAccess", "Target", "client_access", "locate", "target"]


@dataclass(frozen=True)
class ClientAccess:
    """Which editor methods this session's tools use (the rest is done locally)."""

    read: bool = False
    write: bool = False
    terminal: bool = False


def client_access(session: SessionContext) -> ClientAccess:
    """What the client declared in ``initialize`` (nothing when there is no client connection, or on
    ACP v2, whose clients have no ``fs/*`` or ``terminal/*`` methods whatever they claim)."""
    caps: Any = session.client_capabilities
    if caps is None or session.client is None or session.protocol_version >= 2:
        return ClientAccess()
    fs = getattr(caps, "fs", None)
    return ClientAccess(
        read=getattr(fs, "read_text_file", False) is True,
        write=getattr(fs, "write_text_file", False) is True,
        terminal=getattr(caps, "terminal", False) is True,
    )


@dataclass(frozen=True)
class Target:
    """A path a tool may use: ``real`` was checked to be inside the session's directories."""

    real: str
    """The resolved path (symlinks followed): what a local implementation opens."""
    shown: str
    """How the user knows it: relative to the cwd when under it."""

    sent: str
    """The absolute path sent to the editor: the real path that was checked (never a path through a
    link, which could be flipped), spelt under the session's root as the client named it."""


def _confined(paths: SessionPaths, path: str, action: str, *, files: bool) -> str:
    """The real path of ``path`` inside the session's directories; ``files``: not a FIFO, device or socket."""
    real = str(paths.resolve(path, action=action))
    if files:
        try:
            mode = os.stat(real).st_mode
        except OSError:
            return real  # a file to create (or one that vanished: the tool says so when it runs)
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise PathError(f"{path} is not a regular file (a FIFO, device or socket); it cannot be {action}")
    return real


def target(paths: SessionPaths, path: str, action: str, *, files: bool = True) -> Target:
    """Confine ``path``; a path outside the session's directories (or a FIFO, …) is a tool error."""
    try:
        real = _confined(paths, path, action, files=files)
    except PathError as exc:
        raise ToolException(str(exc)) from exc
    return Target(real=real, shown=paths.display(real), sent=paths.client_path(real))


def locate(paths: SessionPaths, path: str, action: str, *, files: bool = True) -> tuple[Target, int | None]:
    """:func:`target` and the mode of what is there now (``None``: nothing, or it cannot be looked at).

    Resolving and looking touch the file system: a tool calls this in a worker thread.
    """
    where = target(paths, path, action, files=files)
    try:
        return where, os.stat(where.real).st_mode
    except OSError:
        return where, None


def path_check(paths: SessionPaths, key: str, action: str, *, files: bool = True, default: str | None = None) -> Any:
    """A tool's ``langacp_check``: the path argument ``key`` must lie inside the session's directories."""
    return _PathCheck(paths, key, action, files, default)


class _PathCheck:
    """:func:`path_check`'s check, called with a call's arguments: why it cannot run, or ``None``."""

    __slots__ = ("action", "default", "files", "key", "paths")

    def __init__(self, paths: SessionPaths, key: str, action: str, files: bool, default: str | None) -> None:
        self.paths, self.key, self.action, self.files, self.default = paths, key, action, files, default

    def __call__(self, args: dict[str, Any]) -> str | None:
        value = args.get(self.key, self.default)
        if value is None:
            return None
        if not isinstance(value, str):
            return f"{self.key} must be a string"
        try:
            _confined(self.paths, value, self.action, files=self.files)
        except PathError as exc:
            return str(exc)
        return None
