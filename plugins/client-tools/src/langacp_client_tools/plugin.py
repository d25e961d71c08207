"""The langacp-client-tools hooks (entry point ``client-tools`` in group ``langacp``).

Cheap to import (it is loaded before ``initialize`` is answered): LangChain and ACP are
imported when a session's tools are built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langacp.api import SessionContext, ToolCallInfo, hookimpl

if TYPE_CHECKING:
    from langacp_client_tools.tools import ClientTools

STATE_KEY = "client-tools"
"""``SessionContext.state`` key of the session's :class:`~langacp_client_tools.tools.ClientTools`."""

KINDS = {"read_file": "read", "write_file": "edit", "edit_file": "edit", "run_command": "execute"}

SYSTEM_PROMPT = (
    "You can change the user's files with write_file (a whole file) and edit_file (replace an exact piece of "
    "text: read the file first and copy the text exactly), and run shell commands in the project with "
    "run_command. Paths are relative to the project root. The user may be asked to approve each change or "
    "command; if one is declined, do not retry it unchanged."
)


def _of(session: SessionContext) -> ClientTools:
    """The session's tools, made on first use."""
    tools: ClientTools | None = session.state.get(STATE_KEY)
    if tools is None:
        from langacp_client_tools.tools import ClientTools

        tools = session.state[STATE_KEY] = ClientTools(session)
    return tools


@hookimpl
def langacp_session_tools(session: SessionContext) -> list[Any]:
    return _of(session).tools()


@hookimpl
def langacp_session_middleware(session: SessionContext) -> list[Any]:
    return _of(session).middleware()


@hookimpl
def langacp_tool_start_content(call: ToolCallInfo, session: SessionContext) -> list[Any] | None:
    """The diff a write or an edit proposes, against the editor's buffer (``None``: not read through the editor)."""
    tools: ClientTools | None = session.state.get(STATE_KEY)
    if tools is None or not tools.seen:
        return None
    from langacp_client_tools.preview import proposed_diff

    return proposed_diff(call, session, tools.seen)


@hookimpl
def langacp_prompt_finished(session: SessionContext) -> None:
    tools: ClientTools | None = session.state.get(STATE_KEY)
    if tools is not None:
        tools.seen.clear()


@hookimpl
def langacp_system_prompt(session: SessionContext) -> str:
    return SYSTEM_PROMPT


@hookimpl(trylast=True)
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    """Our tools' kinds when no other plugin (langacp-tools, with its user pins) maps them."""
    return KINDS.get(call.name) if STATE_KEY in session.state else None


@hookimpl
async def langacp_session_closed(session: SessionContext) -> None:
    tools: ClientTools | None = session.state.get(STATE_KEY)
    if tools is not None:
        await tools.commands.aclose()
