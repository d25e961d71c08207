"""The langacp-tools hooks: kind, title, locations, proposed diff and result content of tool calls.

Cheap to import (it is loaded before ``initialize`` is answered): ACP and LangChain are
imported inside the hooks that need them.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, cast

from langacp.api import SessionContext, ToolCallInfo, hookimpl, layers_for
from langacp_tools import diffs
from langacp_tools.config import config_tables, load_pins
from langacp_tools.kinds import Kind, kind_of, tool_part
from langacp_tools.locations import locations_of
from langacp_tools.results import result_content, shows_own_content
from langacp_tools.titles import title_of


def _pins(session: SessionContext) -> dict[str, str]:
    mine = diffs.state(session)
    if mine.pins is None:
        mine.pins = load_pins(session.cwd, layers_for(session))
    return mine.pins


def _kind(call: ToolCallInfo, session: SessionContext) -> Kind:
    """The kind every installed plugin agrees on (a third-party kind mapper may override ours)."""
    if session.plugins is not None:
        return cast(Kind, session.plugins.tool_kind(call, session))
    return kind_of(call.name, _pins(session))


async def _opened(session: SessionContext) -> None:
    """The session's pins, and its directories as real paths (``await session.roots()``)."""
    _pins(session)
    mine = diffs.state(session)
    if mine.roots is None:
        mine.roots = list(await session.roots())


@hookimpl
def langacp_config_tables() -> list[Any]:
    return config_tables()


@hookimpl
async def langacp_session_created(session: SessionContext) -> None:
    await _opened(session)


@hookimpl
async def langacp_session_loaded(session: SessionContext) -> None:
    await _opened(session)


@hookimpl
def langacp_prompt_finished(session: SessionContext) -> None:
    diffs.state(session).end_turn()


@hookimpl
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    """The kind its name says; ``None`` for a tool it cannot place (unless pinned), so a later plugin may answer."""
    pins = _pins(session)
    kind = kind_of(call.name, pins)
    if kind == "other" and (not pins or not {call.name, tool_part(call.name)} & pins.keys()):
        return None  # the core's default is "other" too
    return kind


@hookimpl
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str | None:
    if not call.args:
        return None
    return title_of(call.name, _kind(call, session), call.args, session.cwd, diffs.state(session).directories)


@hookimpl
def langacp_tool_locations(call: ToolCallInfo, session: SessionContext) -> list[Any] | None:
    return locations_of(call.args, session.cwd) if call.args else None


@hookimpl
def langacp_tool_start_content(call: ToolCallInfo, session: SessionContext) -> list[Any] | None:
    """The diff an edit proposes, computed from its arguments and the file as it is now."""
    from acp import tool_diff_content

    if not call.args or _kind(call, session) != "edit":
        return None
    before = diffs.capture_before(call, session, replace=False)
    if before is None:
        return None
    path, old = before
    new = diffs.proposed_text(old, call.args)
    return [tool_diff_content(path, new, old)] if new is not None and new != old else None


@hookimpl
def langacp_tool_result_content(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any] | None:
    return result_content(call, _kind(call, session), result, session) or None


@hookimpl
def langacp_session_middleware(session: SessionContext) -> list[Any]:
    from langacp_tools.middleware import DiffCapture

    return [DiffCapture(session)]


@hookimpl
def langacp_tool_starting(call: ToolCallInfo, session: SessionContext) -> Awaitable[None] | None:
    """An edit is about to run (after the permission check): read its file again, so the result's
    diff compares with what was really there."""
    if not call.tool_call_id or _kind(call, session) != "edit":
        return None
    from langacp_tools.middleware import capture

    return capture(call, session)


@hookimpl
def langacp_tool_finished(call: ToolCallInfo, result: Any, session: SessionContext) -> Awaitable[None] | None:
    """An edit ran: read its file's new text in a worker thread, so its result's diff reads nothing
    on the event loop. Only for a call whose old text was captured and whose result shows the diff."""
    if call.tool_call_id not in diffs.state(session).before or shows_own_content(result):
        return None
    from langacp_tools.middleware import capture_after

    return capture_after(call, session)
