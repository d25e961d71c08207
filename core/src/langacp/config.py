"""The langacp configuration files, shared by every plugin; each plugin reads only its own table.

- user: ``$XDG_CONFIG_HOME/langacp/config.toml`` (``~/.config/langacp/config.toml`` when the
  variable is unset or not absolute);
- project: ``.langacp.toml`` in the session's working directory.

A project file comes with the repository the user opened, so a plugin whose settings could
loosen safety (permissions, starting MCP servers) must treat the two differently; plain
preferences use :func:`langacp.trust.load_table`, where the project's keys win.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

__all__ = ["PROJECT_FILE", "ConfigError", "ConfigFileError", "project_config_path", "read_config", "user_config_path"]

log = logging.getLogger("langacp.config")

PROJECT_FILE = ".langacp.toml"


class ConfigError(ValueError):
    """A configuration file or one of its tables is wrong: ``FILE:LINE: what is wrong; fix: how``."""

    path: Path | None = None
    line: int | None = None
    table: str | None = None
    """The table that is wrong (``None``: the whole file cannot be read)."""


class ConfigFileError(ConfigError):
    """A configuration file exists but cannot be read or parsed; the message names the file."""


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/langacp/config.toml`` (``~/.config`` when unset or not absolute)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    home = os.environ.get("HOME")
    key = (base, home)
    found = _USER_PATHS.get(key)
    if found is None:  # read by several plugins for every session: the path is worked out once per environment
        root = Path(base) if base and os.path.isabs(base) else Path(os.path.expanduser("~")) / ".config"
        found = _USER_PATHS[key] = root / "langacp" / "config.toml"
        if len(_USER_PATHS) > 8:
            _USER_PATHS.pop(next(iter(_USER_PATHS)))
    return found


_USER_PATHS: dict[tuple[str, str | None], Path] = {}


def project_config_path(cwd: str) -> Path:
    """``.langacp.toml`` in the session's working directory."""
    found = _PROJECT_PATHS.get(cwd)
    if found is None:
        found = _PROJECT_PATHS[cwd] = Path(cwd) / PROJECT_FILE
        if len(_PROJECT_PATHS) > 64:
            _PROJECT_PATHS.pop(next(iter(_PROJECT_PATHS)))
    return found


_PROJECT_PATHS: dict[str, Path] = {}


MAX_CONFIG_BYTES = 1024 * 1024
"""A configuration file larger than this is refused (a project file is untrusted input)."""


def read_config(path: Path) -> dict[str, Any]:
    """The whole file as a dict; ``{}`` when it does not exist; :class:`ConfigFileError` when unreadable.

    The error's message is ``FILE:LINE:COLUMN: what is wrong`` for a file that is not UTF-8
    or not valid TOML, so an editor's log points at the spot. Only a regular file is read: a
    FIFO, device or socket in its place (a hostile repository) is refused without waiting on
    it, as is a file over :data:`MAX_CONFIG_BYTES`.
    """
    import tomllib  # only when a session starts: keeps the agent's start-up light

    data = _read_regular(path)
    if data is None:
        return {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        raise ConfigFileError(
            f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(_toml_message(path, str(exc))) from exc
    except RecursionError as exc:  # arrays nested thousands deep
        raise ConfigFileError(f"{path}: nested too deeply") from exc


def _read_regular(path: Path) -> bytes | None:
    """The bytes of the regular file ``path`` (``None`` if it does not exist), never waiting on a FIFO."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as f:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ConfigFileError(f"{path}: cannot read it: not a regular file")
            data = f.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise ConfigFileError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigFileError(f"{path}: cannot read it: larger than {MAX_CONFIG_BYTES // 1024} KiB")
    return data


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def _toml_message(path: Path, message: str) -> str:
    """``FILE:LINE:COLUMN: message`` from tomllib's "message (at line L, column C)"."""
    import re

    match = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if match is None:
        match_end = re.search(r"\s*\(at end of document\)$", message)
        if match_end is not None:
            return f"{path}: {message[: match_end.start()]} (at the end of the file)"
        return f"{path}: {message}"
    return f"{path}:{match.group(1)}:{match.group(2)}: {message[: match.start()]}"
