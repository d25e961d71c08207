"""Default permission policy: allow everything; when a plugin says "ask", ask once.

``langacp-permissions`` replaces both with a configurable policy and remembered answers.
"""

from __future__ import annotations

from typing import Any

from langacp.hookspecs import hookimpl
from langacp.types import PermissionDecision, SessionContext, ToolCallInfo


@hookimpl(trylast=True)
def langacp_permission(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionDecision:
    return "allow"


@hookimpl(trylast=True)
def langacp_ask_permission(call: ToolCallInfo, kind: str, session: SessionContext) -> Any:
    return ask_once(call, kind, session)


async def ask_once(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionDecision:
    """Send ``session/request_permission`` with allow-once / reject-once options."""
    from acp.schema import PermissionOption, ToolCallUpdate

    if session.client is None:
        return "deny"
    options = [
        PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
        PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    ]
    described = session.plugins.describe_tool(call, session) if session.plugins is not None else {"title": call.name}
    tool_call = ToolCallUpdate(tool_call_id=call.tool_call_id, raw_input=call.args, **{**described, "kind": kind})
    return "allow" if await session.request_permission(tool_call, options) == "allow_once" else "deny"
