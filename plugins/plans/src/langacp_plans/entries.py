"""Tool-call arguments → ACP plan entries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from acp.schema import PlanEntry, PlanEntryPriority, PlanEntryStatus

PLAN_TOOLS = ("write_todos", "update_plan")
"""Tool names whose arguments are a plan: LangChain's ``TodoListMiddleware`` and ours."""

_STATUSES = {"pending", "in_progress", "completed"}
_PRIORITIES = {"high", "medium", "low"}


def plan_entries(args: dict[str, Any]) -> list[PlanEntry] | None:
    """The plan in a plan tool's arguments (``todos`` or ``entries`` or ``plan``), or ``None``.

    Each item needs a ``content`` (or ``step``) text; ``status`` defaults to ``pending`` and
    ``priority`` to ``medium``; unknown values fall back to those defaults.
    """
    from acp import plan_entry

    items = next((args[key] for key in ("todos", "entries", "plan") if isinstance(args.get(key), list)), None)
    if items is None:
        return None
    entries = []
    for item in items:
        if not isinstance(item, dict):
            continue
        content = item.get("content") or item.get("step")
        if not isinstance(content, str) or not content.strip():
            continue
        status = cast("PlanEntryStatus", item["status"] if item.get("status") in _STATUSES else "pending")
        priority = cast("PlanEntryPriority", item["priority"] if item.get("priority") in _PRIORITIES else "medium")
        entries.append(plan_entry(content.strip(), status=status, priority=priority))
    return entries


def plan_id(args: dict[str, Any]) -> str | None:
    """The id of the plan a call writes (``plan_id``), when it names one: one plan of several."""
    value = args.get("plan_id")
    if not isinstance(value, str) or not value.strip():
        return None
    return " ".join(value.split())[:100]
