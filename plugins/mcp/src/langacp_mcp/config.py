"""Which MCP servers a session gets: the client's ``mcpServers`` plus the configuration files.

Sources, the first one wins when two name the same server:

1. the ``mcpServers`` of ``session/new`` / ``load`` / ``resume`` (the editor's own settings);
2. ``[mcp.servers.<name>]`` in ``.langacp.toml`` in the session's working directory, **only**
   when project servers are allowed (``LANGACP_MCP_PROJECT_SERVERS=1`` or ``project_servers =
   true`` under ``[mcp]`` in the user file): a repository you just cloned must not be able to
   start processes on your machine by opening it;
3. ``[mcp.servers.<name>]`` in the user file ``$XDG_CONFIG_HOME/langacp/config.toml``
   (default ``~/.config/langacp/config.toml``).

Other tables of these files belong to other plugins and are ignored here.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from langacp.api import (
    PROJECT_FILE,
    ConfigError,
    ConfigFileError,
    ConfigLayers,
    ConfigTable,
    load_layers,
    project_config_path,
    read_config,
    read_table,
    user_config_path,
)

if TYPE_CHECKING:
    from langacp_mcp.table import McpSettings, ServerTable

__all__ = [
    "DEFAULT_TIMEOUT",
    "PROJECT_FILE",
    "PROJECT_SERVERS_ENV",
    "TIMEOUT_ENV",
    "Configured",
    "ServerSpec",
    "base_environment",
    "config_tables",
    "load_configured",
    "reads_project_file",
    "spec_from_acp",
    "user_config_path",
]

log = logging.getLogger("langacp.mcp")

PROJECT_SERVERS_ENV = "LANGACP_MCP_PROJECT_SERVERS"
TIMEOUT_ENV = "LANGACP_MCP_TIMEOUT"
DEFAULT_TIMEOUT = 10.0
"""Seconds a server has to start and list its tools before the session opens without it."""

_POSIX_BASE = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ")
_WINDOWS_BASE = (
    "PATH",
    "PATHEXT",
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
    "HOMEDRIVE",
    "HOMEPATH",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROCESSOR_ARCHITECTURE",
)
_BRACED_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

Transport = Literal["stdio", "http", "sse"]


@dataclass(frozen=True)
class ServerSpec:
    """One MCP server to connect: a stdio command, or an http / sse URL."""

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables set for a stdio server, on top of :func:`base_environment`."""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    source: str = "client"
    """Where it was configured: ``client`` or a configuration file's path."""


@dataclass
class Configured:
    """The servers a session gets, and what was refused on the way (told to the user)."""

    servers: list[ServerSpec] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    timeout: float = DEFAULT_TIMEOUT


def base_environment() -> dict[str, str]:
    """The few variables of the agent's environment a stdio server inherits (PATH, HOME, …)."""
    names = _WINDOWS_BASE if sys.platform == "win32" else _POSIX_BASE
    return {name: os.environ[name] for name in names if name in os.environ}


def spec_from_acp(server: Any) -> ServerSpec:
    """A server of an ACP ``mcpServers`` list (``acp.schema`` model) as a spec; ``ValueError`` if unusable."""
    name = str(getattr(server, "name", "") or "")
    kind = getattr(server, "type", None)
    if not name:
        raise ValueError("an MCP server without a name")
    if kind is None and getattr(server, "command", None):
        env = {v.name: v.value for v in getattr(server, "env", None) or []}
        return ServerSpec(name, "stdio", command=server.command, args=tuple(server.args or ()), env=env)
    if kind in ("http", "sse"):
        headers = {h.name: h.value for h in getattr(server, "headers", None) or []}
        return ServerSpec(name, kind, url=str(server.url), headers=headers)
    raise ValueError(f"MCP server {name!r}: transport {kind!r} is not supported")


def reads_project_file(layers: ConfigLayers) -> bool:
    """Whether :func:`load_configured` reads the project's file itself (blocking: call it in a thread).

    It does for an untrusted project with an ``[mcp]`` table: its servers are taken as written
    (they run only on the user's opt-in), not as the core restricted them.
    """
    return not layers.trusted and layers.project_error is None and "mcp" in layers.project


IF_INVALID = "no MCP server from your file is started"


def config_tables() -> list[ConfigTable]:
    """The ``[mcp]`` table, for ``langacp check`` and the core's one-line report."""
    from langacp_mcp.table import McpTable

    return [ConfigTable("mcp", McpTable, IF_INVALID)]


def load_configured(cwd: str, client_servers: Sequence[Any], layers: ConfigLayers | None = None) -> Configured:
    """The client's servers first, then the project's (if allowed) and the user's.

    ``layers``: the session's configuration (``layers_for``), read here when not given. A file
    that cannot be read is reported by the core (``ConfigLayers.unreadable``), not here.
    """
    result = Configured()
    layers = layers if layers is not None else load_layers(cwd)
    user_path = layers.user_path or user_config_path()
    user = _mcp_table(layers.user, user_path, result.problems)
    result.timeout = _timeout(user, result.problems)
    for server in client_servers:
        try:
            spec = spec_from_acp(server)
        except ValueError as exc:
            result.problems.append(str(exc))
            continue
        if any(s.name == spec.name for s in result.servers):
            result.problems.append(f"MCP server {spec.name!r} is listed twice; the first one is used")
        else:
            result.servers.append(spec)
    project_path = layers.project_path or project_config_path(cwd)
    if reads_project_file(layers):
        project = _read_mcp_table(project_path, result.problems)
    else:
        project = _mcp_table(layers.project, project_path, result.problems)
    if project.servers:
        if _project_allowed(user):
            # ${VAR} is the agent's environment: filled in only for the user's file (or a trusted project)
            _add_from_table(result, project, project_path, cwd, expand=layers.trusted)
        else:
            result.problems.append(
                f"{project_path} configures MCP servers ({', '.join(sorted(project.servers))}) that were not "
                f"started: project servers run only when {PROJECT_SERVERS_ENV}=1 is set or "
                f"`project_servers = true` is under [mcp] in {user_path}"
            )
    _add_from_table(result, user, user_path, cwd)
    return result


def _read_mcp_table(path: Path, problems: list[str]) -> McpSettings:
    try:
        data = read_config(path)
    except ConfigFileError as exc:
        problems.append(str(exc))
        return _settings()
    return _mcp_table(data, path, problems)


def _settings() -> McpSettings:
    from langacp_mcp.table import McpSettings

    return McpSettings()


def _mcp_table(data: Mapping[str, Any], path: Path, problems: list[str]) -> McpSettings:
    from langacp_mcp.table import McpSettings

    try:
        return read_table(McpSettings, "mcp", data, path)
    except ConfigError as exc:
        problems.append(str(exc))
        return McpSettings()


def _project_allowed(user: McpSettings) -> bool:
    flag = os.environ.get(PROJECT_SERVERS_ENV, "").strip().lower()
    if flag:
        return flag not in ("0", "false", "no", "off")
    return user.project_servers


def _timeout(user: McpSettings, problems: list[str]) -> float:
    raw: Any = os.environ.get(TIMEOUT_ENV) or user.timeout or DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except (TypeError, ValueError):
        problems.append(f"invalid MCP timeout {raw!r}; using {DEFAULT_TIMEOUT:g} s")
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def _add_from_table(result: Configured, table: McpSettings, path: Path, cwd: str, *, expand: bool = True) -> None:
    from langacp_mcp.table import ServerTable

    taken = {spec.name for spec in result.servers}
    for name in table.servers:
        if name in taken:
            log.info("langacp-mcp: MCP server %r from %s is already configured; the first one is used", name, path)
            continue
        key = f'mcp.servers."{name}"' if "." in name or '"' in name else f"mcp.servers.{name}"
        try:
            spec = read_table(ServerTable, key, {"mcp": {"servers": table.servers}}, path)
        except ConfigError as exc:
            result.problems.append(str(exc))
            continue
        result.servers.append(_spec(str(name), spec, str(path), cwd, expand=expand))


def _spec(name: str, table: ServerTable, source: str, cwd: str, *, expand: bool = True) -> ServerSpec:
    if table.command is not None:
        return ServerSpec(
            name,
            "stdio",
            command=table.command,
            args=table.args,
            env=_strings(table.env, expand=expand),
            cwd=os.path.join(cwd, table.cwd) if table.cwd else None,
            source=source,
        )
    return ServerSpec(
        name,
        table.transport,
        url=table.url or "",
        headers=_strings(table.headers, expand=expand),
        source=source,
    )


def _strings(table: Mapping[str, str], *, expand: bool = True) -> dict[str, str]:
    """A table of strings; with ``expand``, ``${VAR}`` in values is replaced from the agent's environment.

    Only the user's file (or a trusted project's) is expanded: an untrusted project's server must
    not be handed the agent's secrets (``Authorization = "Bearer ${ANTHROPIC_API_KEY}"``).
    """
    if not expand:
        return {str(k): v for k, v in table.items()}
    return {str(k): _BRACED_VAR.sub(lambda m: os.environ.get(m.group(1), ""), v) for k, v in table.items()}
