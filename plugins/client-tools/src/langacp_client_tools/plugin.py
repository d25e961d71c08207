"""The langacp-client-tools hooks (entry point ``client-tools`` in group ``langacp``).

Cheap to import (it is loaded before ``initialize`` is answered): LangChain and ACP are
imported when a session's tools are built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langacp.api import SessionContext, ToolCallInfo, hookimpl

if TYPE_CHECKING:
    from langacp_client_tools.tools import ClientTools


@dataclass(slots=True)
class _Held:
    """This plugin's live state of a session (``session.scratch(_Held)``)."""

    tools: ClientTools | None = None
    """The session's tools, once asked for."""


KINDS = {"read_file": "read", "write_file": "edit", "edit_file": "edit", "run_command": "execute"}

SYSTEM_PROMPT = (
    "You can change the user's files with write_file (a whole file) and edit_file (replace an exact piece of "
    "text: read the file first and copy the text exactly), and run shell commands in the project with "
    "run_command. Paths are relative to the project root. The user may be asked to approve each change or "
    "command; if one is declined, do not retry it unchanged."
)


def held_tools(session: SessionContext) -> ClientTools | None:
    """The session's tools, if this plugin made them."""
    return session.scratch(_Held).tools


async def _of(session: SessionContext) -> ClientTools:
    """The session's tools, made on first use, confined to its directories (``await session.roots()``)."""
    held = session.scratch(_Held)
    if held.tools is None:
        from langacp.api import SessionPaths
        from langacp_client_tools.tools import ClientTools

        roots = await session.roots()
        paths = SessionPaths(session.cwd, session.additional_directories, roots=roots)
        if held.tools is None:
            held.tools = ClientTools(session, paths=paths)
    return held.tools


@hookimpl
async def langacp_session_tools(session: SessionContext) -> list[Any]:
    return (await _of(session)).shared_tools()


@hookimpl
async def langacp_session_middleware(session: SessionContext) -> list[Any]:
    return (await _of(session)).middleware()


@hookimpl
def langacp_tool_start_content(call: ToolCallInfo, session: SessionContext) -> list[Any] | None:
    """The diff a write or an edit proposes, against the editor's buffer (``None``: not read through the editor)."""
    tools = held_tools(session)
    if tools is None or not tools.seen:
        return None
    from langacp_client_tools.preview import proposed_diff

    return proposed_diff(call, session, tools.seen)


@hookimpl
def langacp_prompt_finished(session: SessionContext) -> None:
    tools = held_tools(session)
    if tools is not None:
        tools.seen.clear()


@hookimpl
def langacp_system_prompt(session: SessionContext) -> str:
    return SYSTEM_PROMPT


@hookimpl(trylast=True)
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    """Our tools' kinds when no other plugin (langacp-tools, with its user pins) maps them."""
    tools = held_tools(session)
    return KINDS.get(call.name) if tools is not None and tools.runs(call.name) else None


@hookimpl
async def langacp_session_closed(session: SessionContext) -> None:
    tools = held_tools(session)
    if tools is not None:
        await tools.commands.aclose()
