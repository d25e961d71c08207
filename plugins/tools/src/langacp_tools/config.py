"""Kinds pinned per tool name: in code, in the user's config file, in the project's.

Files (only the ``[tools.kinds]`` table is read; other tables belong to other plugins)::

    # .langacp.toml in the session's cwd, or $XDG_CONFIG_HOME/langacp/config.toml
    [tools.kinds]
    deploy = "execute"
    github__create_issue = "edit"

The user file wins over :func:`pin_kinds` (the app's own defaults), which wins over the
built-in table. The project file's pins are applied by the core (:mod:`langacp.trust`), after
every plugin mapped the kind, and only where they make a tool riskier: a repository cannot
make ``run_command`` a ``read``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langacp.api import ConfigLayers, load_layers, user_config_path
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


def _file_pins(data: dict[str, Any], path: Path) -> dict[str, str]:
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


def load_pins(cwd: str, layers: ConfigLayers | None = None) -> dict[str, str]:
    """The kinds pinned for a session in ``cwd`` from code and by the user (the user's pins win)."""
    layers = layers if layers is not None else load_layers(cwd)
    return {**_code_pins, **_file_pins(layers.user, layers.user_path or user_config_path())}
