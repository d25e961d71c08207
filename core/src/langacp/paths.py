"""Confining paths to a session's directories (its cwd and additional directories).

A path is resolved against the session's cwd, then through ``os.path.realpath``: ``..``, an
absolute path elsewhere and a symlink pointing out all end up outside every root and are
refused with :class:`PathOutsideError`. Tools that touch files (the default agent's, the
client tools) call :meth:`SessionPaths.resolve` before reading, writing or asking the editor.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

__all__ = ["PathError", "PathOutsideError", "SessionPaths", "is_inside"]


class PathError(ValueError):
    """A path argument is not a usable path (empty, not a string, holds NUL)."""


class PathOutsideError(PathError):
    """A path resolves outside the session's directories."""


def is_inside(real: str, roots: Sequence[str]) -> bool:
    """Whether the real path ``real`` is one of ``roots`` (real paths) or under one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


class SessionPaths:
    """The directories a session may touch: ``cwd`` first, then ``additional_directories``."""

    def __init__(self, cwd: str, additional_directories: Sequence[str] = ()) -> None:
        self.cwd = Path(cwd)
        self.roots = [os.path.realpath(d) for d in (cwd, *additional_directories)]

    def resolve(self, path: str, *, action: str = "used") -> Path:
        """``path`` (relative to the cwd, or absolute) as a real path inside a root.

        Raises :class:`PathError` for a malformed path and :class:`PathOutsideError` for one
        that leaves the session's directories; ``action`` words the message (``"read"``).
        """
        if not isinstance(path, str) or not path.strip():
            raise PathError("path must be a non-empty string")
        if "\x00" in path:
            raise PathError("path must not contain NUL characters")
        raw = Path(path).expanduser() if path.startswith("~") else Path(path)
        real = os.path.realpath(raw if raw.is_absolute() else self.cwd / raw)
        if not self.inside(real):
            raise PathOutsideError(
                f"{path} is outside the session's directories ({', '.join(self.roots)}); "
                f"only files under them can be {action}"
            )
        return Path(real)

    def inside(self, real: str) -> bool:
        """Whether the real path ``real`` lies in one of the session's directories."""
        return is_inside(real, self.roots)

    def display(self, real: Path | str) -> str:
        """A path as the user thinks of it: relative to the cwd when under it."""
        root = self.roots[0].rstrip(os.sep)
        text = str(real)
        if text == self.roots[0]:
            return "."
        if text.startswith(root + os.sep):
            return text[len(root) + 1 :]
        return text
