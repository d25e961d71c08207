"""This plugin's table of the langacp config files.

``$XDG_CONFIG_HOME/langacp/config.toml`` (user), then ``.langacp.toml`` in the session's
working directory (project, wins). Other tables belong to other plugins and are ignored; a
file that cannot be read is logged and skipped.
"""

from __future__ import annotations

import logging
import os
import tomllib
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def config_files(cwd: str) -> list[Path]:
    """The config files, weakest first."""
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return [Path(home) / "langacp" / "config.toml", Path(cwd) / ".langacp.toml"]


def load_table(name: str, cwd: str) -> dict[str, Any]:
    """The ``[name]`` table, merged over every config file (the project's keys win)."""
    merged: dict[str, Any] = {}
    for path in config_files(cwd):
        try:
            with path.open("rb") as f:
                table = tomllib.load(f).get(name)
        except FileNotFoundError:
            continue
        except (OSError, tomllib.TOMLDecodeError) as exc:
            log.warning("langacp: ignoring config file %s: %s", path, exc)
            continue
        if isinstance(table, dict):
            merged.update(table)
        elif table is not None:
            log.warning("langacp: [%s] in %s is not a table; ignored", name, path)
    return merged
