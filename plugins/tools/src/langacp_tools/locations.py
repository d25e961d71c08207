"""File locations a tool call touches, from its arguments, made absolute against the session cwd."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langacp_tools.paths import absolute, has_paths, iter_paths

if TYPE_CHECKING:
    from acp.schema import ToolCallLocation

__all__ = ["LINE_KEYS", "locations_of"]

LINE_KEYS = ("line", "start_line", "line_number", "lineno", "offset")
"""Argument names that hold a line number, most specific first."""


def _line(args: Mapping[str, Any]) -> int | None:
    for key in LINE_KEYS:
        value = args.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def locations_of(args: Mapping[str, Any], cwd: str) -> list[ToolCallLocation]:
    """One location per distinct path argument; the line (if any) goes with the first."""
    if not has_paths(args):
        return []
    from acp.schema import ToolCallLocation

    seen: list[str] = []
    for _, path in iter_paths(args):
        full = absolute(path, cwd)
        if full not in seen:
            seen.append(full)
    line = _line(args)
    return [ToolCallLocation(path=path, line=line if i == 0 else None) for i, path in enumerate(seen)]
