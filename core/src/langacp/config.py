"""The langacp configuration files, shared by every plugin; each plugin reads only its own table.

- user: ``$XDG_CONFIG_HOME/langacp/config.toml`` (``~/.config/langacp/config.toml`` when the
  variable is unset or not absolute);
- project: ``.langacp.toml`` in the session's working directory.

A project file comes with the repository the user opened, so a plugin whose settings could
loosen safety (permissions, starting MCP servers) must treat the two differently; plain
preferences use :func:`load_table`, where the project's keys win.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

__all__ = ["PROJECT_FILE", "ConfigFileError", "load_table", "project_config_path", "read_config", "user_config_path"]

log = logging.getLogger("langacp.config")

PROJECT_FILE = ".langacp.toml"


class ConfigFileError(ValueError):
    """A configuration file exists but cannot be read or parsed; the message names the file."""


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/langacp/config.toml`` (``~/.config`` when unset or not absolute)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path(os.path.expanduser("~")) / ".config"
    return root / "langacp" / "config.toml"


def project_config_path(cwd: str) -> Path:
    """``.langacp.toml`` in the session's working directory."""
    return Path(cwd) / PROJECT_FILE


def read_config(path: Path) -> dict[str, Any]:
    """The whole file as a dict; ``{}`` when it does not exist; :class:`ConfigFileError` when unreadable."""
    import tomllib  # only when a session starts: keeps the agent's start-up light

    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigFileError(f"{path}: {exc}") from exc


def load_table(name: str, cwd: str) -> dict[str, Any]:
    """The ``[name]`` table merged over the user file and the project file (the project's keys win).

    A dotted ``name`` (``"tools.kinds"``) names a sub-table. A file that cannot be read, or a
    value that is not a table, is logged on stderr and skipped.
    """
    merged: dict[str, Any] = {}
    for path in (user_config_path(), project_config_path(cwd)):
        try:
            table: Any = read_config(path)
        except ConfigFileError as exc:
            log.warning("langacp: ignoring config file %s", exc)
            continue
        for part in name.split("."):
            table = table.get(part) if isinstance(table, dict) else None
        if isinstance(table, dict):
            merged.update(table)
        elif table is not None:
            log.warning("langacp: [%s] in %s is not a table; ignored", name, path)
    return merged
