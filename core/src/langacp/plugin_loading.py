"""Plugins found by entry point, blocked, listed and registered, each implementation guarded.

Entry points in group ``langacp`` are loaded one at a time: a plugin that fails to import, to
register, or that implements what the contract (:mod:`langacp.hookspecs`) does not have (a
hook that does not exist, an ``async def`` of a synchronous hook) is reported on stderr in one
line and skipped; the others still load. (pluggy's own ``load_setuptools_entrypoints`` stops
at the first broken one.) A plugin's import runs with ``sys.stdout`` pointed at stderr:
stdout is the protocol.

Blocking: ``-p no:NAME`` on the command line or ``LANGACP_DISABLE_PLUGINS=a,b``.
``LANGACP_DISABLE_PLUGIN_AUTOLOAD=1`` loads no entry point except those named with ``-p NAME``.
Names match with ``-`` or ``_`` alike, in any case; ``-p NAME`` / ``-p no:NAME`` must name an
installed plugin (a typo is an error, not a plugin left out). The core's defaults are always
registered (``trylast``) and cannot be blocked.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import EntryPoint, PackageNotFoundError, entry_points, version
from typing import Any, Literal

import pluggy

from langacp import hookspecs
from langacp.default_plugins import DEFAULT_PLUGINS
from langacp.hook_calls import DirectCalls, MonitoredManager
from langacp.hook_guard import HookGuard

__all__ = [
    "DRIVER_GROUPS",
    "ENTRY_POINT_GROUP",
    "PluginNameError",
    "PluginRecord",
    "PluginSet",
    "canonical_name",
    "driver_records",
    "parse_plugin_options",
]

log = logging.getLogger("langacp.plugins")

ENTRY_POINT_GROUP = "langacp"
DISABLE_ENV = "LANGACP_DISABLE_PLUGINS"
NO_AUTOLOAD_ENV = "LANGACP_DISABLE_PLUGIN_AUTOLOAD"
DRIVER_GROUPS = ("langacp.stores", "langacp.targets")
"""Entry-point groups of drivers (chosen by name through stevedore, never loaded as plugins)."""

Status = Literal["builtin", "loaded", "blocked", "broken", "not-loaded", "driver"]


@dataclass
class PluginRecord:
    """One plugin (or driver) as ``langacp plugins`` lists it."""

    name: str
    status: Status
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    error: str | None = None
    group: str = "langacp"
    """Its entry-point group: ``langacp`` for plugins, ``langacp.stores`` / ``langacp.targets`` for drivers."""
    source: str | None = None
    """Where it comes from: the entry point's object reference (``module`` or ``module:attr``)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of(cls, ep: EntryPoint, status: Status, **more: Any) -> PluginRecord:
        """The record of an entry-point plugin."""
        dist, at = (ep.dist.name, ep.dist.version) if ep.dist is not None else (None, None)
        return cls(ep.name, status, dist, at, source=ep.value, **more)


def canonical_name(name: str) -> str:
    """A plugin name as compared: ``client-tools``, ``client_tools`` and ``Client_Tools`` are one plugin."""
    return name.strip().replace("-", "_").lower()


def _split_names(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").replace(";", ",").split(",") if part.strip()}


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


class PluginNameError(ValueError):
    """``-p NAME`` or ``-p no:NAME`` names no installed plugin (or ``no:`` a built-in one, which cannot be blocked)."""


def parse_plugin_options(options: Iterable[str]) -> tuple[set[str], set[str]]:
    """Split ``-p`` values into (blocked names, explicitly enabled names)."""
    blocked: set[str] = set()
    enabled: set[str] = set()
    for option in options:
        if option.startswith("no:"):
            blocked.add(option[3:])
        else:
            enabled.add(option)
    return blocked, enabled


def selection(
    found: Sequence[EntryPoint],
    blocked: Iterable[str],
    enabled: Iterable[str],
    autoload: bool | None,
    builtin: set[str],
) -> Callable[[EntryPoint], Status]:
    """What becomes of each entry point found: ``"loaded"`` (load it), ``"blocked"`` or ``"not-loaded"``.

    ``builtin``: the canonical names of the core's defaults. See ``Plugins.load_entry_points``.
    """
    blocked, enabled = set(blocked), set(enabled)
    installed = {canonical_name(ep.name): ep.name for ep in found}
    _check_names(blocked, enabled, installed, builtin)
    from_env = {canonical_name(n) for n in _split_names(os.environ.get(DISABLE_ENV))}
    for name in sorted(from_env - installed.keys()):
        log.warning("langacp: %s names %r, which is not installed", DISABLE_ENV, name)
    blocked_set = {canonical_name(n) for n in blocked} | from_env
    enabled_set = {canonical_name(n) for n in enabled}
    if autoload is None:
        autoload = not _truthy(os.environ.get(NO_AUTOLOAD_ENV))

    def status(ep: EntryPoint) -> Status:
        name = canonical_name(ep.name)
        if name in blocked_set:
            return "blocked"
        return "loaded" if autoload or name in enabled_set else "not-loaded"

    return status


def _check_names(blocked: set[str], enabled: set[str], installed: dict[str, str], builtin: set[str]) -> None:
    """:class:`PluginNameError` unless every ``-p`` name is an installed plugin (``builtin``: never ``no:``)."""
    known = ", ".join(sorted(installed.values())) or "none"
    for option, name in sorted([*(("no:", n) for n in blocked), *(("", n) for n in enabled)]):
        if option and canonical_name(name) in builtin:
            raise PluginNameError(f"-p no:{name}: {name!r} is built into langacp and cannot be blocked")
        if canonical_name(name) not in installed and canonical_name(name) not in builtin:
            raise PluginNameError(f"-p {option}{name}: no plugin of that name is installed (installed: {known})")


def driver_records() -> list[PluginRecord]:
    """Every installed driver, from entry-point metadata only (nothing is imported)."""
    records = []
    for group in DRIVER_GROUPS:
        for ep in sorted(entry_points(group=group), key=lambda ep: ep.name):
            records.append(PluginRecord.of(ep, "driver", group=group))
    return records


def installed_version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


class PluginSet(HookGuard):
    """The plugins of a process: the core's defaults and the plugins loaded or registered, as pluggy holds them."""

    def __init__(self) -> None:
        super().__init__()
        self.pm = MonitoredManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.direct = DirectCalls(self.pm)
        """The synchronous hooks' calls (:mod:`langacp.hook_calls`)."""
        self.records: list[PluginRecord] = []
        self._defaults = DEFAULT_PLUGINS
        self._register_defaults()

    def _register_defaults(self) -> None:
        """(Re-)register the core's defaults *after* every other plugin.

        pluggy calls ``trylast`` implementations in registration order, so registering the
        defaults last keeps them behind any plugin's ``trylast`` implementation too.
        """
        for name, module in self._defaults:
            if self.pm.has_plugin(name):
                self.pm.unregister(name=name)
            self._add(module, name, builtin=True)
        at = installed_version("langacp")
        builtin = [
            PluginRecord(n, "builtin", "langacp", at, self._hooks_of(n), source=m.__name__) for n, m in self._defaults
        ]
        self.records = [*builtin, *(r for r in self.records if r.status != "builtin")]

    def _add(self, plugin: object, name: str, builtin: bool = False) -> list[str]:
        """Register ``plugin``'s implementations, wrapped; or, without registering it, why it is refused."""
        stand_in, refused = self.stand_in(self.pm, plugin, name, builtin)
        if not refused:
            self.pm.register(stand_in, name=name)
        return refused

    def _hooks_of(self, name: str) -> list[str]:
        return sorted(c.name for c in self.pm.get_hookcallers(self.pm.get_plugin(name)) or [])

    # -- loading ---------------------------------------------------------------------------

    def load_entry_points(
        self,
        *,
        blocked: Iterable[str] = (),
        enabled: Iterable[str] = (),
        autoload: bool | None = None,
    ) -> None:
        """Load plugins from entry points, one by one, honouring blocks and the autoload switch.

        Names match with ``-`` or ``_`` alike, in any case. :class:`PluginNameError` if
        ``enabled`` or ``blocked`` names a plugin that is not installed, or ``blocked`` a built-in
        one (naming a built-in one in ``enabled`` is allowed: it is always loaded). A name in
        ``LANGACP_DISABLE_PLUGINS`` that is not installed is only warned about: the variable may
        be set for many setups.
        """
        found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
        status = selection(found, blocked, enabled, autoload, {canonical_name(name) for name, _ in self._defaults})
        # pluggy calls the most recently registered implementation first: register in reverse
        # alphabetical order so that, within a tier, the alphabetically first plugin wins.
        with contextlib.redirect_stdout(sys.stderr):  # a plugin printing while it loads
            for ep in reversed(found):
                if (what := status(ep)) == "loaded":
                    self._load_one(ep)
                else:
                    self.records.append(PluginRecord.of(ep, what))
        self._register_defaults()
        self.records.sort(key=lambda r: (r.status != "builtin", r.name))

    def _load_one(self, ep: EntryPoint) -> None:
        if self.pm.has_plugin(ep.name):
            self._broken(ep, "duplicate plugin name")
            return
        try:
            refused = self._add(ep.load(), ep.name)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure of a third-party plugin
            self._broken(ep, f"{type(exc).__name__}: {exc}")
            return
        if refused:
            self._broken(ep, "; ".join(refused))
        else:
            self.records.append(PluginRecord.of(ep, "loaded", hooks=self._hooks_of(ep.name)))

    def _broken(self, ep: EntryPoint, error: str) -> None:
        self.records.append(record := PluginRecord.of(ep, "broken", error=error))
        log.error("langacp: plugin %r (%s) failed to load and was skipped: %s", ep.name, record.distribution, error)

    def register(self, plugin: object, name: str | None = None) -> None:
        """Register a plugin object from code (tests, embedding applications).

        ``pluggy.PluginValidationError`` if it implements what the contract does not have.
        """
        name = name or self.pm.get_canonical_name(plugin)
        refused = self._add(plugin, name)
        if refused:
            raise pluggy.PluginValidationError(plugin, f"plugin {name!r} was refused: {'; '.join(refused)}")
        self._register_defaults()
        self.records.append(PluginRecord(name, "loaded", hooks=self._hooks_of(name)))
