"""The plans plugin's hooks: plan tools → ACP ``plan`` updates, and the built-in ``update_plan`` tool.

A client that advertises ACP's unstable ``clientCapabilities.plan`` keeps several plans by id:
it gets ``plan_update`` (the plan the call names with ``plan_id``, else ``main``) and
``plan_removed`` (a call that empties a plan); any other client the stable ``plan``.

Configuration (``[plans]`` in ``.langacp.toml`` or ``~/.config/langacp/config.toml``):
``builtin_tool = false`` stops contributing ``update_plan`` (say, when the agent has a tool of
that name already).
"""

from __future__ import annotations

import logging
from typing import Any

from langacp.api import MAIN_PLAN, SessionContext, ToolCallInfo, hookimpl, layers_for, plans_by_id
from langacp_plans.entries import PLAN_TOOLS, plan_entries, plan_id

log = logging.getLogger("langacp.plans")


IF_INVALID = "the built-in plan tool is offered"


def _builtin_tool(session: SessionContext) -> bool:
    from langacp.api import ConfigError, read_table
    from langacp_plans.table import PlansTable

    layers = layers_for(session)
    try:
        return read_table(PlansTable, "plans", layers).builtin_tool
    except ConfigError as exc:
        layers.report(str(exc), IF_INVALID)
        return True


@hookimpl
def langacp_config_tables() -> list[Any]:
    from langacp.api import ConfigTable
    from langacp_plans.table import PlansTable

    return [ConfigTable("plans", PlansTable, IF_INVALID)]


@hookimpl
def langacp_session_tools(session: SessionContext) -> list[Any]:
    if not _builtin_tool(session):
        return []
    from langacp_plans.tool import update_plan

    return [update_plan]


@hookimpl
def langacp_session_middleware(session: SessionContext) -> list[Any]:
    if not _builtin_tool(session):
        return []
    from langacp_plans.tool import HideWhenTodos

    return [HideWhenTodos()]


@hookimpl
def langacp_tool_updates(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any] | None:
    if call.name not in PLAN_TOOLS or getattr(result, "status", None) == "error":
        return None
    entries = plan_entries(call.args)
    if entries is None:
        return None
    if plans_by_id(session):
        from langacp.api import plan_removed, plan_update

        named = plan_id(call.args) or MAIN_PLAN
        return [plan_update(named, entries) if entries else plan_removed(named)]
    from acp import update_plan

    return [update_plan(entries)]


@hookimpl
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    return "think" if call.name in PLAN_TOOLS else None


@hookimpl
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str | None:
    if call.name not in PLAN_TOOLS:
        return None
    entries = plan_entries(call.args)
    named = plan_id(call.args)
    plan = f"plan {named!r}" if named else "plan"
    if not entries:
        return f"Remove {plan}" if named and entries is not None else "Update plan"
    done = sum(1 for entry in entries if entry.status == "completed")
    return f"Update {plan} ({done}/{len(entries)} done)"


@hookimpl
def langacp_tool_result_content(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any] | None:
    # The plan itself is shown by the plan update; repeating it as text only adds noise.
    if call.name in PLAN_TOOLS and getattr(result, "status", None) != "error":
        return []
    return None
