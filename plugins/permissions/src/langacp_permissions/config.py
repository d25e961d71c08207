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
stderr (once, ``FILE:LINE`` and the fix; ``langacp check`` finds it before serving), and the
session's policy falls back to asking before every tool call. A broken project file or table
is ignored whole: the user's policy stays in force.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from langacp.api import (
    PROJECT_FILE,
    ConfigError,
    ConfigLayers,
    ConfigTable,
    load_layers,
    project_config_path,
    read_table,
    user_config_path,
)
from langacp_permissions.policy import Policy, Rule

if TYPE_CHECKING:
    from langacp_permissions.table import PermissionsTable

__all__ = ["PROJECT_FILE", "ConfigError", "config_tables", "load_policy", "project_config_path", "user_config_path"]

IF_INVALID = "every tool call asks for permission"


def config_tables() -> list[ConfigTable]:
    """The ``[permissions]`` table, for ``langacp check`` and the core's one-line report."""
    from langacp_permissions.table import PermissionsTable

    return [ConfigTable("permissions", PermissionsTable, IF_INVALID)]


def _rules(table: PermissionsTable, path: Path | None) -> list[Rule]:
    source = str(path)
    return [
        *(Rule(decision, kind=pattern, source=source) for pattern, decision in table.kinds.items()),
        *(Rule(decision, tool=pattern, source=source) for pattern, decision in table.tools.items()),
    ]


def load_policy(cwd: str, base: Policy | None = None, layers: ConfigLayers | None = None) -> Policy:
    """The policy for a session in ``cwd``: ``base`` (default: :class:`Policy` defaults) plus both files.

    ``layers`` are the session's configuration as the core gives it (read here when not given):
    the project's part is already restricted to what may tighten (no ``allow``), or complete
    for a project the user trusts.
    """
    from langacp_permissions.table import PermissionsTable

    base = base if base is not None else Policy()
    layers = layers if layers is not None else load_layers(cwd)
    unreadable = layers.unreadable(project=False)
    if unreadable is not None:
        layers.report(unreadable, IF_INVALID)
        return Policy.ask_everything(source=f"fallback: {layers.user_error}")
    try:
        user = read_table(PermissionsTable, "permissions", layers, project=False)
    except ConfigError as exc:
        layers.report(str(exc), IF_INVALID)
        return Policy.ask_everything(source=f"fallback: {exc}")
    policy = base.with_rules(*_rules(user, layers.user_path or user_config_path()))
    try:
        project = read_table(PermissionsTable, "permissions", layers, project=True)
    except ConfigError as exc:  # a broken project table never replaces the user's policy
        layers.report(str(exc), "the project's [permissions] is ignored; yours apply")
        return policy
    rules = _rules(project, layers.project_path or project_config_path(cwd))
    if layers.trusted:
        return policy.with_rules(*rules)
    # The core took every "allow" out of an untrusted project file (and said so); what is left only tightens.
    return policy.with_restrictions(*(rule for rule in rules if rule.decision != "allow"))
