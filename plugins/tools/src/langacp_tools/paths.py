"""Paths in tool arguments: which argument names hold them, absolute and display forms, session roots."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "PATH_KEYS",
    "PATH_LIST_KEYS",
    "absolute",
    "display",
    "first_path",
    "has_paths",
    "inside_roots",
    "iter_paths",
]

PATH_KEYS = (
    "path",
    "file_path",
    "filepath",
    "filename",
    "file",
    "target_file",
    "notebook_path",
    "source",
    "destination",
    "target",
    "dir_path",
    "directory",
    "dir",
)
"""Argument names that hold one file or directory path, most specific first."""

PATH_LIST_KEYS = ("paths", "files", "file_paths")
"""Argument names that hold a list of paths."""


_ANY_PATH_KEY = frozenset(PATH_KEYS + PATH_LIST_KEYS)


def has_paths(args: Mapping[str, Any]) -> bool:
    """Whether ``args`` has an argument named as a path may be (else :func:`iter_paths` yields nothing)."""
    return not _ANY_PATH_KEY.isdisjoint(args)


def _looks_like_path(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) < 4096 and "\n" not in value and "://" not in value


def iter_paths(args: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(argument name, path) for every path-like argument, in :data:`PATH_KEYS` order."""
    for key in PATH_KEYS:
        value = args.get(key)
        if _looks_like_path(value):
            yield key, str(value)
    for key in PATH_LIST_KEYS:
        values = args.get(key)
        if isinstance(values, list):
            for value in values:
                if _looks_like_path(value):
                    yield key, str(value)


def first_path(args: Mapping[str, Any]) -> str | None:
    """The main path argument of a call, as given."""
    return next((path for _, path in iter_paths(args)), None)


def absolute(path: str, cwd: str) -> str:
    """``path`` made absolute against the session's ``cwd`` (normalised, symlinks kept).

    ``~`` and ``~/…`` are the home directory, as the tools that confine paths read them
    (``langacp.paths``): what the user is shown is what is written.
    """
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser(path)
    return os.path.normpath(os.path.join(cwd, path))


def display(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` when inside it, else absolute: how a title shows it."""
    full = absolute(path, cwd)
    root = os.path.normpath(cwd)
    if full == root:
        return "."
    if full.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(full, root)
    return full


def inside_roots(path: str, roots: list[str]) -> bool:
    """Whether ``path``, resolved (``realpath``: it touches the file system), lies inside one of ``roots``
    (the session's directories, already real paths)."""
    try:
        real = os.path.realpath(path)
    except OSError:  # a link changed while it was being followed, a loop, …: not known to be inside
        return False
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)
