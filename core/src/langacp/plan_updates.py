"""Plans by id for plugins: ACP's unstable ``plan_update`` / ``plan_removed``, behind ``clientCapabilities.plan``.

Cheap to import (the ACP SDK is imported when an update is built). A plugin asks
:func:`plans_by_id` and returns :func:`plan_update` / :func:`plan_removed` from a hook that
returns updates (``langacp_tool_updates``), or the stable ``plan`` (``acp.update_plan``) to a
client without the capability.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langacp.types import SessionContext

__all__ = ["MAIN_PLAN", "plan_removed", "plan_update", "plans_by_id"]

MAIN_PLAN = "main"
"""The id of an agent's main plan (a plan tool call that names none). A sub-agent's main plan is
shown to its parent's client as the plan whose id is the parent's tool call id."""


def plans_by_id(session: SessionContext) -> bool:
    """The session's client advertised the unstable ``plan`` capability: it keeps several plans, by id."""
    from langacp.protocol.capabilities import client_plans

    return client_plans(session.client_capabilities)


def plan_update(plan_id: str, entries: list[Any]) -> Any:
    """``plan_update``: plan ``plan_id`` is now ``entries`` (``acp.schema.PlanEntry``), created or replaced whole."""
    from langacp.protocol import plan_update as build

    return build(plan_id, entries)


def plan_removed(plan_id: str) -> Any:
    """``plan_removed``: plan ``plan_id`` is gone from the client's view."""
    from langacp.protocol import plan_removed as build

    return build(plan_id)
