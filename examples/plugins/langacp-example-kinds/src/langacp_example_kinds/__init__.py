"""Kinds for a team's own tools, and a rule that a deploy always asks.

Plain ``hookimpl`` plugins are called before the core's ``trylast`` defaults, and among
themselves in alphabetical order of their entry-point names: ``example_kinds`` comes before
``tools``, so its kind wins; for every other tool it returns ``None`` and lets the next plugin
answer. Its permission rule is enforced by the core whatever the policy says (and whichever
plugin decides it): even in a mode that allows everything, a deploy asks first.
"""

from __future__ import annotations

from langacp.api import PermissionRule, SessionContext, ToolCallInfo, hookimpl

KINDS = {
    "screenshot": "read",  # looks at the screen
    "show_terminal": "read",  # only shows a command's output (langacp-tools would say execute)
    "deploy": "execute",
}

DEPLOY_ASKS = PermissionRule("ask", tool="deploy", source="langacp-example-kinds")
"""A deploy is never run without asking the user (an ``ask`` rule beats any ``allow``)."""


@hookimpl
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    return KINDS.get(call.name)


@hookimpl
def langacp_permission_rules(call: ToolCallInfo, kind: str, session: SessionContext) -> list[PermissionRule]:
    return [DEPLOY_ASKS]  # the rule's own glob says which calls it is about
