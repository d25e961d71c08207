"""Kinds for a team's own tools, overriding whatever else would answer (langacp-tools, the core).

Plain ``hookimpl`` plugins are called before the core's ``trylast`` defaults, and among
themselves in alphabetical order of their entry-point names: ``example_kinds`` comes before
``tools``, so this answer wins; for every other tool it returns ``None`` and lets the next
plugin answer.
"""

from __future__ import annotations

from langacp.api import SessionContext, ToolCallInfo, hookimpl

KINDS = {
    "screenshot": "read",  # looks at the screen
    "show_terminal": "read",  # only shows a command's output (langacp-tools would say execute)
    "deploy": "execute",
}


@hookimpl
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    return KINDS.get(call.name)
