"""Remembered "always" answers, kept with the session so they survive ``session/load``.

They are this plugin's session data (``session.data(PermissionsData)``, stored under
``permissions``): a JSON list of ``{"tool": …, "pattern": {"prefix", "options", "denied"} |
"exact": …, "decision": "allow" | "deny"}`` (see :class:`~langacp_permissions.scope.Scope`).
The core saves it after every prompt, and a persistent session store keeps it. Entries that
are not understood (an older format, a hand-edited store) are ignored, never trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langacp.api import PermissionDecision, SessionContext, ToolCallInfo
from langacp_permissions.scope import Scope

__all__ = ["PermissionsData", "recall", "remember", "remembered"]


@dataclass
class PermissionsData:
    """What this plugin keeps with a session."""

    remembered: list[Any] = field(default_factory=list)
    """The "always" answers as JSON entries; each is checked when read (see :func:`remembered`)."""


def remembered(session: SessionContext) -> list[tuple[Scope, PermissionDecision]]:
    """Every valid remembered answer of the session, oldest first."""
    found: list[tuple[Scope, PermissionDecision]] = []
    for entry in session.data(PermissionsData).remembered:
        scope = Scope.from_json(entry)
        decision = entry.get("decision") if isinstance(entry, dict) else None
        if scope is not None and decision in ("allow", "deny"):
            found.append((scope, decision))
    return found


def recall(session: SessionContext, call: ToolCallInfo) -> tuple[Scope, PermissionDecision] | None:
    """The last remembered answer whose scope covers ``call``, with that scope."""
    answer: tuple[Scope, PermissionDecision] | None = None
    for known, decision in remembered(session):
        if known.covers(call):
            answer = (known, decision)
    return answer


def remember(session: SessionContext, scope: Scope, decision: PermissionDecision) -> None:
    """Remember ``decision`` (``allow`` / ``deny``) for ``scope``, replacing an earlier answer."""
    kept = [{**scope_.as_json(), "decision": d} for scope_, d in remembered(session) if scope_ != scope]
    session.data(PermissionsData).remembered = [*kept, {**scope.as_json(), "decision": decision}]
