"""Who may loosen what: the user's configuration against a project's, enforced here for every plugin.

The user's file (``$XDG_CONFIG_HOME/langacp/config.toml``) may loosen and tighten. A project's
``.langacp.toml`` comes with whatever repository the user opened, so it may only tighten:

- no ``"allow"`` anywhere (a permission decision: rules, a mode's permissions, a default);
- no ``enabled = false`` (it cannot switch off a mode or a check);
- none of the keys only the user may set (:data:`USER_ONLY`): trusted projects, which mode a
  session starts in, whether project MCP servers run, model factories (code to import);
- kind pins (``[tools.kinds]``) only where they make a tool *riskier* (:func:`riskier`):
  the core applies them after every plugin mapped the kind (:func:`project_kind`).

Everything else in the project file applies as each plugin reads it. What is taken out is
reported: a line on stderr and a notice the editor shows in the session, naming the file and
the key. A project file that cannot be read or parsed is ignored whole (with a notice): it
never replaces the user's configuration. A project under one of the user's
``[trust] projects`` (or ``[permissions] trusted_projects``) directories is trusted: its file
applies in full.

Plugins read configuration through :func:`layers_for` (or :func:`load_layers`), never the
project file directly.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langacp.config import ConfigFileError, project_config_path, read_config, user_config_path
from langacp.off_loop import run_off_loop
from langacp.roots import SessionRoots, real_paths
from langacp.types import SessionContext

__all__ = [
    "KIND_RISK",
    "USER_ONLY",
    "ConfigLayers",
    "SessionLayers",
    "layers_for",
    "load_layers",
    "load_table",
    "open_layers",
    "project_kind",
    "riskier",
]

log = logging.getLogger("langacp.config")

USER_ONLY = frozenset(
    {
        "trust",
        "permissions.trusted_projects",
        "modes.default",
        "mcp.project_servers",
        "mcp.trust_annotations",
        "mcp.timeout",
    }
)
"""Dotted keys a project file may not set (its value is ignored, with a notice)."""

KIND_RISK = {
    "think": 0,
    "read": 1,
    "search": 1,
    "fetch": 2,
    "switch_mode": 2,
    "other": 3,
    "edit": 4,
    "move": 5,
    "delete": 6,
    "execute": 7,
}
"""How much harm a call of each ACP tool kind can do; a project pin must not lower it."""


def riskier(pinned: str, kind: str) -> bool:
    """Whether ``pinned`` is a riskier kind than ``kind`` (an unknown kind counts as ``other``)."""
    return KIND_RISK.get(pinned, KIND_RISK["other"]) > KIND_RISK.get(kind, KIND_RISK["other"])


@dataclass
class ConfigLayers:
    """The user's configuration and what a project's file may add to it, for one working directory.

    The sessions of one working directory share one object while neither file changes
    (:func:`open_layers`): read it, never change it.
    """

    user: dict[str, Any] = field(default_factory=dict)
    """The user's file (``{}`` when missing or unreadable: see :attr:`user_error`)."""
    project: dict[str, Any] = field(default_factory=dict)
    """The project's file with everything that would loosen taken out (all of it when trusted)."""
    user_path: Path | None = None
    project_path: Path | None = None
    user_error: str | None = None
    """Why the user's file could not be read; plugins then fall back to their safest settings."""
    project_error: str | None = None
    """Why the project's file could not be read (it is then ignored whole)."""
    trusted: bool = False
    """The project lies under one of the user's trusted directories: its file applies in full."""
    notices: list[str] = field(default_factory=list)
    """What was ignored and why, naming the file and the key: logged and shown in the session."""
    _merged: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False, compare=False)
    """:meth:`merged` by table name: the layers never change, so each table is merged once."""
    _reported: set[str] = field(default_factory=set, init=False, repr=False, compare=False)
    """What :meth:`report` logged already."""
    checked: list[tuple[str, str]] | None = field(default=None, init=False, repr=False, compare=False)
    """What the core found wrong in these layers (``langacp.default_plugins.trust``): each problem
    with what it means for the session; ``None`` until checked."""

    def unreadable(self, *, project: bool) -> str | None:
        """The one line that says a file cannot be read (``None`` when it can): the same words everywhere."""
        error = self.project_error if project else self.user_error
        if error is None:
            return None
        whose = "the project's" if project else "your"
        return f"{whose} config file is ignored, cannot read it: {error}"

    def report(self, problem: str, consequence: str = "") -> bool:
        """Log ``problem`` (and what it means for the session) on stderr, once for these layers.

        The sessions of a working directory share one layers object while its files stay as
        they are, and several plugins may meet the same broken file: each problem is one line,
        once. Returns whether it was logged now.
        """
        if problem in self._reported:
            return False
        self._reported.add(problem)
        log.warning("langacp: %s%s", problem, f"; until it is fixed, {consequence}" if consequence else "")
        return True

    def table(self, name: str, *, project: bool) -> Any:
        """The ``[name]`` table (dotted for a sub-table) of the user's or the project's layer, or ``None``."""
        value: Any = self.project if project else self.user
        for part in name.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def merged(self, name: str) -> dict[str, Any]:
        """The ``[name]`` table of both layers merged, the project's keys winning (as ``load_table`` reads it).

        A value that is not a table is logged (once) and skipped. Each call returns a new dict.
        """
        merged = self._merged.get(name)
        if merged is None:
            merged = {}
            for project, path in ((False, self.user_path), (True, self.project_path)):
                table = self.table(name, project=project)
                if isinstance(table, dict):
                    merged.update(table)
                elif table is not None:
                    log.warning("langacp: [%s] in %s is not a table; ignored", name, path)
            self._merged[name] = merged
        return dict(merged)

    def project_pins(self) -> dict[str, str]:
        """The project's kind pins (``[tools.kinds]``): applied only where they make a tool riskier."""
        table = self.table("tools.kinds", project=True)
        return {str(k): v for k, v in table.items() if isinstance(v, str)} if isinstance(table, dict) else {}


def _trusted_roots(user: dict[str, Any]) -> list[Path]:
    found: list[Any] = []
    trust = user.get("trust")
    if isinstance(trust, dict) and isinstance(trust.get("projects"), list):
        found += trust["projects"]
    permissions = user.get("permissions")
    if isinstance(permissions, dict) and isinstance(permissions.get("trusted_projects"), list):
        found += permissions["trusted_projects"]
    return [Path(os.path.expanduser(p)).resolve() for p in found if isinstance(p, str) and p]


def _restrict(value: Any, path: str, notices: list[str], file: Path) -> Any:
    """``value`` (at dotted ``path``) without what would loosen; each removal noted."""
    if path in USER_ONLY:
        notices.append(f"{file}: {path}: only the user's config may set this; ignored")
        return _REMOVED
    if isinstance(value, dict):
        if path.startswith("models.") and "factory" in value:
            notices.append(f"{file}: {path}.factory: a project file may not name code to import; ignored")
            return _REMOVED
        kept: dict[str, Any] = {}
        for key, inner in value.items():
            child = f"{path}.{key}" if path else str(key)
            if key == "enabled" and inner is False:
                notices.append(f"{file}: {child} = false: a project file may not disable anything; ignored")
                continue
            restricted = _restrict(inner, child, notices, file)
            if restricted is not _REMOVED:
                kept[key] = restricted
        return kept
    if isinstance(value, list):
        return [
            item
            for item in (_restrict(v, f"{path}[{i}]", notices, file) for i, v in enumerate(value))
            if item is not _REMOVED
        ]
    if value == "allow":
        notices.append(f'{file}: {path} = "allow": a project file may only tighten (ask, deny); ignored')
        return _REMOVED
    if path.startswith("tools.kinds.") and KIND_RISK.get(str(value), KIND_RISK["other"]) <= KIND_RISK["search"]:
        notices.append(
            f'{file}: {path} = "{value}": a project file may pin a tool only to a riskier kind; '
            "applied only where it makes the tool riskier"
        )
    return value


_REMOVED = object()


def load_layers(cwd: str) -> ConfigLayers:
    """Read the user's and the project's files for a session in ``cwd`` (blocking file reads: use a thread)."""
    user_path, project_path = user_config_path(), project_config_path(cwd)
    layers = ConfigLayers(user_path=user_path, project_path=project_path)
    try:
        layers.user = read_config(user_path)
    except ConfigFileError as exc:
        layers.user_error = str(exc)
        layers.notices.append(str(layers.unreadable(project=False)))
    try:
        project = read_config(project_path)
    except ConfigFileError as exc:
        layers.project_error = str(exc)
        layers.notices.append(str(layers.unreadable(project=True)))
        return layers
    if not project:
        return layers
    here = Path(cwd).resolve()
    layers.trusted = any(here == root or root in here.parents for root in _trusted_roots(layers.user))
    if layers.trusted:
        layers.project = project
        return layers
    restricted = _restrict(project, "", layers.notices, project_path)
    layers.project = restricted if isinstance(restricted, dict) else {}
    return layers


@dataclass
class SessionLayers:
    """A session's configuration layers (``session.scratch(SessionLayers)``), once in place."""

    layers: ConfigLayers | None = None
    pins_warned: set[str] = field(default_factory=set)
    """The tools whose less risky project pin was logged already (:func:`project_kind`)."""


def load_table(name: str, cwd: str) -> dict[str, Any]:
    """The ``[name]`` table merged over the user file and the project file (the project's keys win).

    A dotted ``name`` (``"tools.kinds"``) names a sub-table. The project's part is what
    :mod:`langacp.trust` lets a project set (nothing that loosens, unless the user trusts the
    project). A file that cannot be read, or a value that is not a table, is logged on stderr
    and skipped. Reads both files now (blocking): in a session's hooks, read
    ``layers_for(session).merged(name)`` instead (read once per session, off the event loop).
    """
    layers = load_layers(cwd)
    for error in (layers.user_error, layers.project_error):
        if error is not None:
            log.warning("langacp: ignoring config file %s", error)
    return layers.merged(name)


def layers_for(session: SessionContext) -> ConfigLayers:
    """The session's configuration layers, read once (see :func:`load_layers`).

    In place before any plugin's ``langacp_session_created`` / ``langacp_session_loaded``
    (:func:`open_layers`); read here, blocking, only for a session that was never opened.
    """
    mine = session.scratch(SessionLayers)
    if mine.layers is None:
        mine.layers = load_layers(session.cwd)
    return mine.layers


READ_TIMEOUT = 10.0
"""Seconds the configuration files may take to read."""
RACY_NS = 2_000_000_000
"""A file changed this close to (or after) the moment it was read is read again for the next
session: a change within the file system's timestamp granularity would not show in ``stat``."""

_Signature = tuple[object, object]
_READ: dict[tuple[str, Path], tuple[_Signature, ConfigLayers]] = {}
"""The layers last read per working directory and user file, with the files' signature then."""
_TOLD: dict[tuple[str, Path], tuple[_Signature, set[str]]] = {}
"""What :meth:`ConfigLayers.report` logged for the files last read per working directory, with their
signature: a file read again only because it changed just now (the racy window) shares it, so the
next session does not repeat a line; a read with another signature starts afresh."""
_KEPT = 64


def _stat(path: Path) -> object:
    """What identifies the file's content: device, inode, size, times (``None``: no file)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return object()  # equal to nothing: read the file again (the read reports the error)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


def _racy(signature: _Signature, read_at: int) -> bool:
    return any(isinstance(s, tuple) and s[3] >= read_at - RACY_NS for s in signature)  # by modification time


def _read(cwd: str, user: Path, project: Path) -> tuple[_Signature, int, ConfigLayers]:
    read_at = time.time_ns()
    signature = (_stat(user), _stat(project))
    return signature, read_at, load_layers(cwd)


def _kept_or_read(
    cwd: str, user: Path, project: Path, known: tuple[_Signature, ConfigLayers] | None
) -> tuple[_Signature, int, ConfigLayers] | None:
    """``None`` when ``known`` (the layers read for an earlier session) still holds, else the files read now."""
    if known is not None and known[0] == (_stat(user), _stat(project)):
        return None
    return _read(cwd, user, project)


def _real(directories: tuple[str, ...]) -> tuple[str, ...] | None:
    """Each of ``directories`` as a real path (``session.roots()``); ``None`` if one cannot be resolved."""
    try:
        return real_paths(directories)
    except (OSError, ValueError):
        return None


def _open(
    directories: tuple[str, ...], user: Path, project: Path, known: tuple[_Signature, ConfigLayers] | None
) -> tuple[tuple[_Signature, int, ConfigLayers] | None, tuple[str, ...] | None]:
    """One worker-thread call per session: :func:`_kept_or_read` for the cwd (first), and the real roots."""
    return _kept_or_read(directories[0], user, project, known), _real(directories)


async def open_layers(session: SessionContext) -> ConfigLayers:
    """Put the session's configuration layers in place (:class:`SessionLayers`), before its plugins' session hooks.

    The files are looked at in a worker thread (a hung file system holds up this session only).
    Sessions of a working directory whose files did not change since (the same device, inode,
    size and times: two ``stat`` calls) share the layers read for an earlier one; a changed file
    is read again for the next session. The same worker-thread call resolves the session's
    directories (``await session.roots()``), so the plugins' session hooks need no hop of their own.
    """
    mine = session.scratch(SessionLayers)
    if mine.layers is not None:
        return mine.layers
    layers: ConfigLayers
    user, project = user_config_path(), project_config_path(session.cwd)
    key = (session.cwd, user)
    known = _READ.get(key)
    directories = (session.cwd, *session.additional_directories)
    try:
        fresh, roots = await run_off_loop(_open, READ_TIMEOUT, directories, user, project, known)
    except TimeoutError:
        log.error("langacp: reading the configuration files of %s took too long; using none", session.cwd)
        layers = ConfigLayers(user_error="the configuration files could not be read in time")
    else:
        if roots is not None:
            session.scratch(SessionRoots).keep(directories, roots)
        if fresh is not None:
            signature, read_at, layers = fresh
            _READ.pop(key, None)
            told = _TOLD.pop(key, None)
            if told is not None and told[0] == signature:
                layers._reported = told[1]
            _TOLD[key] = (signature, layers._reported)
            if len(_TOLD) > _KEPT:
                _TOLD.pop(next(iter(_TOLD)))
            if not _racy(signature, read_at):
                _READ[key] = (signature, layers)
                if len(_READ) > _KEPT:
                    _READ.pop(next(iter(_READ)))
        elif known is not None:  # the files did not change
            layers = known[1]
    if mine.layers is None:  # (another call may have put them in place meanwhile)
        mine.layers = layers
    return mine.layers


def project_kind(name: str, kind: str, session: SessionContext) -> str:
    """``kind``, or the project's pin for tool ``name`` when that pin is riskier."""
    pinned = layers_for(session).project_pins().get(name)
    if pinned is None or pinned == kind:
        return kind
    if riskier(pinned, kind):
        return pinned
    warned = session.scratch(SessionLayers).pins_warned
    if name not in warned:
        warned.add(name)
        log.warning(
            "langacp: %s pins %s to %r, less risky than %r: a project file may only make a tool riskier; ignored",
            layers_for(session).project_path,
            name,
            pinned,
            kind,
        )
    return kind
