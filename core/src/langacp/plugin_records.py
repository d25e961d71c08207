"""What ``langacp plugins`` lists (plugins and drivers, from entry points) and how plugins are named.

Names match with ``-`` or ``_`` alike, in any case; ``-p NAME`` / ``-p no:NAME`` must name an
installed plugin (a typo is an error, not a plugin left out).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import EntryPoint, PackageNotFoundError, entry_points, version
from typing import Any, Literal

__all__ = [
    "DRIVER_GROUPS",
    "ENTRY_POINT_GROUP",
    "PluginNameError",
    "PluginRecord",
    "canonical_name",
    "driver_records",
    "parse_plugin_options",
    "selection",
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
