"""The langacp-client-tools hooks (entry point ``client-tools`` in group ``langacp``).

Cheap to import (it is loaded before ``initialize`` is answered): LangChain and ACP are
imported when a session's tools are built.
"""

from __future__ import annotations

from typing import Any

from langacp import SessionContext, ToolCallInfo, hookimpl

STATE_KEY = "client-tools"
"""``SessionContext.state`` key of the session's :class:`~langacp_client_tools.tools.ClientTools`."""

KINDS = {"read_file": "read", "write_file": "edit", "edit_file": "edit", "run_command": "execute"}

SYSTEM_PROMPT = (
    "You can change the user's files with write_file (a whole file) and edit_file (replace an exact piece of "
    "text: read the file first and copy the text exactly), and run shell commands in the project with "
    "run_command. Paths are relative to the project root. The user may be asked to approve each change or "
    "command; if one is declined, do not retry it unchanged."
)


@hookimpl
def langacp_session_tools(session: SessionContext) -> list[Any]:
    from langacp_client_tools.tools import ClientTools

    tools = ClientTools(session)
    session.state[STATE_KEY] = tools
    return tools.tools()


@hookimpl
def langacp_system_prompt(session: SessionContext) -> str:
    return SYSTEM_PROMPT


@hookimpl(trylast=True)
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    """Our tools' kinds when no other plugin (langacp-tools, with its user pins) maps them."""
    return KINDS.get(call.name) if STATE_KEY in session.state else None


@hookimpl
async def langacp_session_closed(session: SessionContext) -> None:
    tools = session.state.get(STATE_KEY)
    if tools is not None:
        await tools.commands.aclose()
