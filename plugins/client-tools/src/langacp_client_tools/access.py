"""What the editor offers a session (``fs.readTextFile``, ``fs.writeTextFile``, ``terminal``) and where a path may go.

Every path is confined by :class:`langacp.paths.SessionPaths` *before* anything is asked of
the editor or done locally: a path outside the session's directories is never sent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import ToolException

from langacp.api import PathError, SessionContext, SessionPaths

__all__ = ["ClientAccess", "Target", "client_access", "target"]


@dataclass(frozen=True)
class ClientAccess:
    """Which editor methods this session's tools use (the rest is done locally)."""

    read: bool = False
    write: bool = False
    terminal: bool = False


def client_access(session: SessionContext) -> ClientAccess:
    """What the client declared in ``initialize`` (nothing when there is no client connection)."""
    caps: Any = session.client_capabilities
    if caps is None or session.client is None:
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
    """The absolute path sent to the editor: as the user wrote it (so open buffers match)
    when it names the same file as ``real``, else ``real``."""


def target(paths: SessionPaths, path: str, action: str) -> Target:
    """Confine ``path``; a path outside the session's directories is a tool error."""
    try:
        real = str(paths.resolve(path, action=action))
    except PathError as exc:
        raise ToolException(str(exc)) from exc
    raw = os.path.expanduser(path) if path.startswith("~") else path
    lexical = os.path.normpath(os.path.join(paths.cwd, raw))
    sent = lexical if os.path.realpath(lexical) == real else real
    return Target(real=real, shown=paths.display(real), sent=sent)
