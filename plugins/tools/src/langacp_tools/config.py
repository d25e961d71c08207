"""Kinds pinned per tool name: in code, in the user's config file, in the project's.

Files (only the ``[tools.kinds]`` table is read; other tables belong to other plugins)::

    # .langacp.toml in the session's cwd, or $XDG_CONFIG_HOME/langacp/config.toml
    [tools.kinds]
    deploy = "execute"
    github__create_issue = "edit"

The project file wins over the user file, which wins over :func:`pin_kinds` (the app's own
defaults), which wins over the built-in table.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from langacp.api import ConfigFileError, project_config_path, read_config, user_config_path
from langacp_tools.kinds import KINDS

__all__ = ["load_pins", "pin_kinds"]

log = logging.getLogger("langacp_tools")

_code_pins: dict[str, str] = {}


def pin_kinds(kinds: Mapping[str, str]) -> None:
    """Pin tool kinds from code (``pin_kinds({"deploy": "execute"})``), e.g. in your agent module."""
    for name, kind in kinds.items():
        if kind not in KINDS:
            raise ValueError(f"unknown tool kind {kind!r} for {name!r}; expected one of {', '.join(KINDS)}")
    _code_pins.update(kinds)


def _file_pins(path: Path) -> dict[str, str]:
    try:
        data = read_config(path)
    except ConfigFileError as exc:
        log.warning("langacp-tools: cannot read %s; its [tools.kinds] are ignored", exc)
        return {}
    tools = data.get("tools")
    table = tools.get("kinds") if isinstance(tools, dict) else None
    if table is None:
        return {}
    if not isinstance(table, dict):
        log.warning("langacp-tools: %s: [tools.kinds] must be a table of tool name = kind", path)
        return {}
    pins: dict[str, str] = {}
    for name, kind in table.items():
        if kind in KINDS:
            pins[str(name)] = kind
        else:
            log.warning("langacp-tools: %s: unknown kind %r for tool %r (ignored)", path, kind, name)
    return pins


def load_pins(cwd: str) -> dict[str, str]:
    """Every pinned kind for a session in ``cwd``, the most specific source winning."""
    return {**_code_pins, **_file_pins(user_config_path()), **_file_pins(project_config_path(cwd))}
