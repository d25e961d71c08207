"""Titles a person reads: ``Read README.md``, ``Run `pytest -q```, ``Search for TODO in src/``."""

from __future__ import annotations

import os
from collections.abc import Mapping
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


def _shown_path(path: str, cwd: str, *, directory: bool = False) -> str:
    shown = display(path, cwd)
    if (directory or os.path.isdir(absolute(path, cwd))) and not shown.endswith(("/", ".")):
        shown += "/"
    return shown


def _paths(args: Mapping[str, Any], cwd: str) -> list[str]:
    return [_shown_path(path, cwd) for _, path in iter_paths(args)]


def _joined(paths: list[str]) -> str:
    return ", ".join(paths) if len(paths) <= 3 else f"{', '.join(paths[:3])} and {len(paths) - 3} more"


def title_of(name: str, kind: Kind, args: Mapping[str, Any], cwd: str) -> str | None:
    """The title of a call to ``name`` of ``kind``, or ``None`` when the arguments say nothing useful."""
    words = set(split_words(tool_part(name)))
    paths = _paths(args, cwd)
    if kind == "read":
        if words & _LIST_WORDS:
            path = next((p for _, p in iter_paths(args)), ".")
            return f"List {_shown_path(path, cwd, directory=True)}"
        return f"Read {_joined(paths)}" if paths else None
    if kind == "search":
        pattern = _string(args, _PATTERN_KEYS)
        if pattern is None:
            return None
        where = f" in {paths[0]}" if paths else ""
        return f"Search for {_short(pattern)}{where}"
    if kind == "execute":
        command = _string(args, _COMMAND_KEYS)
        return f"Run `{_short(command)}`" if command else None
    if kind == "edit":
        if not paths:
            return None
        verb = next((v for w, v in _EDIT_VERBS.items() if w in words), "Edit")
        return f"{verb} {_joined(paths)}"
    if kind == "delete":
        return f"Delete {_joined(paths)}" if paths else None
    if kind == "move":
        return f"Move {paths[0]} → {paths[1]}" if len(paths) >= 2 else None
    if kind == "fetch":
        url = _string(args, _URL_KEYS)
        if url:
            return f"Fetch {_short(url)}"
        query = _string(args, _PATTERN_KEYS)
        return f"Search the web for {_short(query)}" if query else None
    if kind == "think":
        if "todos" in words or "todo" in words or "plan" in words:
            return "Update the plan"
        description = _string(args, ("description", "subject", "title"))
        if name == "task" and description:
            return f"Task: {_short(description)}"
        return "Think" if "think" in words or "thinking" in words or "sequentialthinking" in words else None
    if kind == "switch_mode":
        mode = _string(args, ("mode", "mode_id", "modeId"))
        if mode:
            return f"Switch to {mode} mode"
        return "Exit plan mode" if {"exit", "plan"} <= words else "Switch mode"
    return None
