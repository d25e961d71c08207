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

from collections.abc import Mapping

from langacp.api import ConfigError, ConfigLayers, ConfigTable, load_layers, read_table
from langacp_tools.kinds import KINDS

__all__ = ["config_tables", "load_pins", "pin_kinds"]

_code_pins: dict[str, str] = {}


def pin_kinds(kinds: Mapping[str, str]) -> None:
    """Pin tool kinds from code (``pin_kinds({"deploy": "execute"})``), e.g. in your agent module."""
    for name, kind in kinds.items():
        if kind not in KINDS:
            raise ValueError(f"unknown tool kind {kind!r} for {name!r}; expected one of {', '.join(KINDS)}")
    _code_pins.update(kinds)


IF_INVALID = "your [tools.kinds] pins are ignored"


def config_tables() -> list[ConfigTable]:
    """The ``[tools.kinds]`` table, for ``langacp check`` and the core's one-line report."""
    from langacp_tools.table import KindsTable

    return [ConfigTable("tools.kinds", KindsTable, IF_INVALID)]


def load_pins(cwd: str, layers: ConfigLayers | None = None) -> dict[str, str]:
    """The kinds pinned for a session in ``cwd`` from code and by the user (the user's pins win)."""
    from langacp_tools.table import KindsTable

    layers = layers if layers is not None else load_layers(cwd)
    try:
        table = read_table(KindsTable, "tools.kinds", layers, project=False)
    except ConfigError as exc:
        layers.report(str(exc), IF_INVALID)
        return dict(_code_pins)
    return {**_code_pins, **table.pins()}
