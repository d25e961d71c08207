"""Titles a person reads: ``Read README.md``, ``Run `pytest -q```, ``Search for TODO in src/``.

A title is made on the event loop, so it never looks at the file system: a path is shown as a
directory (``src/``) when the argument says so (a trailing ``/``, a listing tool) or when it is
among the ``directories`` the caller learnt off the loop (:mod:`langacp_tools.middleware`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import Any

from langacp_tools.kinds import Kind, split_words, tool_part
from langacp_tools.paths import absolute, display, iter_paths

__all__ = ["title_of"]

MAX_SHOWN = 80
_PATTERN_KEYS = ("pattern", "query", "regex", "search", "q", "glob", "search_term", "text")
_COMMAND_KEYS = ("command", "cmd", "script", "commands", "code")
_URL_KEYS = ("url", "uri", "link", "href")
_LIST_WORDS = {"list", "ls", "tree", "dir", "directory"}
_EDIT_VERBS = {
    "write": "Write",
    "create": "Create",
    "append": "Append to",
    "patch": "Patch",
    "overwrite": "Write",
    "save": "Write",
}


def _short(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    cut = len(line) > MAX_SHOWN or "\n" in text.strip()
    return (line[: MAX_SHOWN - 1] if len(line) > MAX_SHOWN else line) + ("…" if cut else "")


def _string(args: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = " && ".join(value)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _shown_path(path: str, cwd: str, directories: Container[str] = (), *, directory: bool = False) -> str:
    shown = display(path, cwd)
    directory = directory or path.endswith("/") or absolute(path, cwd) in directories
    if directory and not shown.endswith(("/", ".")):
        shown += "/"
    return shown


def _paths(args: Mapping[str, Any], cwd: str, directories: Container[str]) -> list[str]:
    return [_shown_path(path, cwd, directories) for _, path in iter_paths(args)]


def _joined(paths: list[str]) -> str:
    return ", ".join(paths) if len(paths) <= 3 else f"{', '.join(paths[:3])} and {len(paths) - 3} more"


@dataclass(frozen=True)
class _Call:
    """A tool call as the title functions read it."""

    name: str
    args: Mapping[str, Any]
    cwd: str
    directories: Container[str]

    @functools.cached_property
    def words(self) -> set[str]:
        return set(split_words(tool_part(self.name)))

    @functools.cached_property
    def paths(self) -> list[str]:
        return _paths(self.args, self.cwd, self.directories)


def _read(call: _Call) -> str | None:
    if call.words & _LIST_WORDS:
        path = next((p for _, p in iter_paths(call.args)), ".")
        return f"List {_shown_path(path, call.cwd, directory=True)}"
    return f"Read {_joined(call.paths)}" if call.paths else None


def _search(call: _Call) -> str | None:
    pattern = _string(call.args, _PATTERN_KEYS)
    if pattern is None:
        return None
    where = f" in {call.paths[0]}" if call.paths else ""
    return f"Search for {_short(pattern)}{where}"


def _execute(call: _Call) -> str | None:
    command = _string(call.args, _COMMAND_KEYS)
    return f"Run `{_short(command)}`" if command else None


def _edit(call: _Call) -> str | None:
    if not call.paths:
        return None
    verb = next((v for w, v in _EDIT_VERBS.items() if w in call.words), "Edit")
    return f"{verb} {_joined(call.paths)}"


def _delete(call: _Call) -> str | None:
    return f"Delete {_joined(call.paths)}" if call.paths else None


def _move(call: _Call) -> str | None:
    paths = call.paths
    return f"Move {paths[0]} → {paths[1]}" if len(paths) >= 2 else None


def _fetch(call: _Call) -> str | None:
    url = _string(call.args, _URL_KEYS)
    if url:
        return f"Fetch {_short(url)}"
    query = _string(call.args, _PATTERN_KEYS)
    return f"Search the web for {_short(query)}" if query else None


def _think(call: _Call) -> str | None:
    if call.words & {"todos", "todo", "plan"}:
        return "Update the plan"
    description = _string(call.args, ("description", "subject", "title"))
    if call.name == "task" and description:
        return f"Task: {_short(description)}"
    return "Think" if call.words & {"think", "thinking", "sequentialthinking"} else None


def _switch_mode(call: _Call) -> str | None:
    mode = _string(call.args, ("mode", "mode_id", "modeId"))
    if mode:
        return f"Switch to {mode} mode"
    return "Exit plan mode" if {"exit", "plan"} <= call.words else "Switch mode"


_TITLES: dict[str, Callable[[_Call], str | None]] = {
    "read": _read,
    "search": _search,
    "execute": _execute,
    "edit": _edit,
    "delete": _delete,
    "move": _move,
    "fetch": _fetch,
    "think": _think,
    "switch_mode": _switch_mode,
}


def title_of(name: str, kind: Kind, args: Mapping[str, Any], cwd: str, directories: Container[str] = ()) -> str | None:
    """The title of a call to ``name`` of ``kind``, or ``None`` when the arguments say nothing useful.

    ``directories``: absolute paths known to be directories (shown with a trailing ``/``).
    """
    titled = _TITLES.get(kind)
    return titled(_Call(name, args, cwd, directories)) if titled is not None else None
