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
just cloned must not be able to allow itself to run commands. Its ``allow`` rules are ignored,
with a warning, unless the project lies under one of the user file's ``trusted_projects``.

A file that cannot be read or holds an invalid ``[permissions]`` table is reported on stderr,
and the session's policy falls back to asking before every tool call.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langacp.api import PROJECT_FILE, ConfigFileError, project_config_path, read_config, user_config_path
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


def read_settings(path: Path) -> FileSettings | None:
    """The file's ``[permissions]`` settings; ``None`` if the file does not exist."""
    if not path.exists():
        return None
    try:
        document = read_config(path)
    except ConfigFileError as exc:
        raise ConfigError(f"cannot read it: {exc}") from exc
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


def _inside(directory: Path, roots: list[Path]) -> bool:
    return any(directory == root or root in directory.parents for root in roots)


def load_policy(cwd: str, base: Policy | None = None) -> Policy:
    """The policy for a session in ``cwd``: ``base`` (default: :class:`Policy` defaults) plus both files."""
    base = base if base is not None else Policy()
    try:
        user = read_settings(user_config_path())
        project = read_settings(project_config_path(cwd))
    except ConfigError as exc:
        log.error("langacp-permissions: %s. Until it is fixed, every tool call asks for permission.", exc)
        return Policy.ask_everything(source=f"fallback: {exc}")
    policy = base
    if user is not None:
        policy = policy.with_rules(*user.rules)
    if project is None:
        return policy
    if project.trusted_projects:
        log.warning(
            "langacp-permissions: %s: trusted_projects is only read from the user config; ignored", project.path
        )
    if user is not None and _inside(Path(cwd).resolve(), user.trusted_projects):
        return policy.with_rules(*project.rules)
    loosening = [rule for rule in project.rules if rule.decision == "allow"]
    if loosening:
        log.warning(
            "langacp-permissions: %s may only tighten the policy; its allow rules are ignored (%s). "
            "To trust this project, add it to trusted_projects in %s.",
            project.path,
            ", ".join(rule.label() for rule in loosening),
            user_config_path(),
        )
    return policy.with_restrictions(*(rule for rule in project.rules if rule.decision != "allow"))
