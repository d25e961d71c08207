"""The plans plugin's hooks: plan tools → ACP ``plan`` updates, and the built-in ``update_plan`` tool.

Configuration (``[plans]`` in ``.langacp.toml`` or ``~/.config/langacp/config.toml``):
``builtin_tool = false`` stops contributing ``update_plan`` (say, when the agent has a tool of
that name already).
"""

from __future__ import annotations

import logging
from typing import Any

from langacp.api import SessionContext, ToolCallInfo, hookimpl, layers_for
from langacp_plans.entries import PLAN_TOOLS, plan_entries

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
    if not entries:
        return "Update plan"
    done = sum(1 for entry in entries if entry.status == "completed")
    return f"Update plan ({done}/{len(entries)} done)"


@hookimpl
def langacp_tool_result_content(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any] | None:
    # The plan itself is shown by the plan update; repeating it as text only adds noise.
    if call.name in PLAN_TOOLS and getattr(result, "status", None) != "error":
        return []
    return None
