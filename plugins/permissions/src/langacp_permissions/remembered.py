"""Remembered "always" answers, kept in the session's record so they survive ``session/load``.

They live in ``SessionRecord.data["permissions"]["remembered"]`` as a JSON list of
``{"tool": …, "prefix": [...] | "exact": …, "decision": "allow" | "deny"}``: the core saves
the record after every prompt, and a persistent session store keeps it. Entries that are
not understood (an older format, a hand-edited store) are ignored, never trusted.
"""

from __future__ import annotations

from typing import Any, cast

from langacp import PermissionDecision, SessionContext
from langacp_permissions.scope import Scope

__all__ = ["DATA_KEY", "recall", "remember", "remembered"]

DATA_KEY = "permissions"


def _data(session: SessionContext) -> dict[str, Any]:
    """This plugin's part of the session record's data (scratch state if there is no record)."""
    record = session.state.get("record")
    data = getattr(record, "data", None)
    if not isinstance(data, dict):
        data = session.state.setdefault("permissions.data", {})
    mine = data.get(DATA_KEY)
    if not isinstance(mine, dict):
        mine = data[DATA_KEY] = {}
    return cast("dict[str, Any]", mine)


def remembered(session: SessionContext) -> list[tuple[Scope, PermissionDecision]]:
    """Every valid remembered answer of the session, oldest first."""
    entries = _data(session).get("remembered")
    found: list[tuple[Scope, PermissionDecision]] = []
    for entry in entries if isinstance(entries, list) else []:
        scope = Scope.from_json(entry)
        decision = entry.get("decision") if isinstance(entry, dict) else None
        if scope is not None and decision in ("allow", "deny"):
            found.append((scope, decision))
    return found


def recall(session: SessionContext, scope: Scope) -> PermissionDecision | None:
    """The remembered answer for exactly this scope, if any."""
    answer: PermissionDecision | None = None
    for known, decision in remembered(session):
        if known == scope:
            answer = decision
    return answer


def remember(session: SessionContext, scope: Scope, decision: PermissionDecision) -> None:
    """Remember ``decision`` (``allow`` / ``deny``) for ``scope``, replacing an earlier answer."""
    data = _data(session)
    kept = [{**scope_.as_json(), "decision": d} for scope_, d in remembered(session) if scope_ != scope]
    data["remembered"] = [*kept, {**scope.as_json(), "decision": decision}]
