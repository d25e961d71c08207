"""The policy from configuration files: the user's ``config.toml`` and the project's ``.langacp.toml``.

Both files are shared with other plugins; only their ``[permissions]`` table is read here
and every other table is left alone::

    [permissions]
    trusted_projects = ["~/src/my-app"]   # user file only

    [permissions.kinds]
    execute = "ask"

    [permissions.tools]
    "read_*" = "allow"
    "delete_*" = "deny"

Rules from the **user** file (``$XDG_CONFIG_HOME/langacp/config.toml``, by default
``~/.config/langacp/config.toml``) override the defaults. Rules from the **project** file
(``.langacp.toml`` in the session's working directory) may only tighten: a repository you
just cloned must not be able to allow itself to run commands. The core's trust layer
(:mod:`langacp.trust`) takes its ``allow`` rules out, with a notice, unless the project lies
under one of the user's trusted directories.

A user file that cannot be read or holds an invalid ``[permissions]`` table is reported on
stderr, and the session's policy falls back to asking before every tool call. A broken
project file or table is ignored whole: the user's policy stays in force.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langacp.api import (
    PROJECT_FILE,
    ConfigLayers,
    load_layers,
    project_config_path,
    user_config_path,
)
from langacp_permissions.policy import DECISIONS, Policy, Rule

__all__ = ["PROJECT_FILE", "ConfigError", "load_policy", "project_config_path", "user_config_path"]

log = logging.getLogger("langacp_permissions")

_KEYS = {"kinds", "tools", "trusted_projects"}


class ConfigError(ValueError):
    """A configuration file's ``[permissions]`` table is invalid; the message names the file and the key."""


@dataclass
class FileSettings:
    """The ``[permissions]`` table of one file, validated."""

    path: Path
    rules: list[Rule] = field(default_factory=list)
    trusted_projects: list[Path] = field(default_factory=list)


def settings_of(document: dict[str, Any], path: Path) -> FileSettings:
    """The ``[permissions]`` settings of a parsed file."""
    table = document.get("permissions")
    if table is None:
        return FileSettings(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [permissions] must be a table")
    return parse_table(table, path)


def parse_table(table: dict[str, Any], path: Path) -> FileSettings:
    """Validate a ``[permissions]`` table: unknown keys and values are errors, not silently ignored."""
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) in [permissions]: {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})"
        )
    settings = FileSettings(path)
    for key, attribute in (("kinds", "kind"), ("tools", "tool")):
        entries = table.get(key, {})
        if not isinstance(entries, dict):
            raise ConfigError(f'{path}: [permissions.{key}] must be a table of "pattern" = "allow" | "ask" | "deny"')
        for pattern, decision in entries.items():
            if decision not in DECISIONS:
                raise ConfigError(
                    f'{path}: [permissions.{key}] "{pattern}" = {decision!r}: expected "allow", "ask" or "deny"'
                )
            settings.rules.append(Rule(decision, **{attribute: pattern}, source=str(path)))
    trusted = table.get("trusted_projects", [])
    if not isinstance(trusted, list) or not all(isinstance(p, str) for p in trusted):
        raise ConfigError(f"{path}: [permissions] trusted_projects must be a list of directory paths")
    settings.trusted_projects = [Path(p).expanduser().resolve() for p in trusted]
    return settings


def load_policy(cwd: str, base: Policy | None = None, layers: ConfigLayers | None = None) -> Policy:
    """The policy for a session in ``cwd``: ``base`` (default: :class:`Policy` defaults) plus both files.

    ``layers`` are the session's configuration as the core gives it (read here when not given):
    the project's part is already restricted to what may tighten (no ``allow``), or complete
    for a project the user trusts.
    """
    base = base if base is not None else Policy()
    layers = layers if layers is not None else load_layers(cwd)
    if layers.user_error is not None:
        log.error("langacp-permissions: %s. Until it is fixed, every tool call asks for permission.", layers.user_error)
        return Policy.ask_everything(source=f"fallback: {layers.user_error}")
    policy = base
    try:
        user = settings_of(layers.user, layers.user_path or user_config_path())
    except ConfigError as exc:
        log.error("langacp-permissions: %s. Until it is fixed, every tool call asks for permission.", exc)
        return Policy.ask_everything(source=f"fallback: {exc}")
    policy = policy.with_rules(*user.rules)
    project_path = layers.project_path or project_config_path(cwd)
    try:
        project = settings_of(layers.project, project_path)
    except ConfigError as exc:  # a broken project table never replaces the user's policy
        log.error("langacp-permissions: %s. The project's [permissions] are ignored; your own apply.", exc)
        return policy
    if layers.trusted:
        return policy.with_rules(*project.rules)
    # The core took every "allow" out of an untrusted project file (and said so); what is left only tightens.
    return policy.with_restrictions(*(rule for rule in project.rules if rule.decision != "allow"))
