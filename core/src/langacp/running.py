"""The running turn of a session, passed explicitly in a context variable (never through shared state).

The server sets it for the task that runs a prompt, the library (:mod:`langacp.lib`) when a turn
starts; the tool guard, the library middleware and :func:`pending_tool_calls` read it. LangGraph
runs nodes in copies of the caller's context, so it is visible inside the graph.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langacp.bridge.turn import TurnReporter
    from langacp.types import SessionContext, ToolCallInfo

__all__ = ["enter_turn", "pending_tool_calls", "running_session", "running_turn"]

_CURRENT: ContextVar[TurnReporter | None] = ContextVar("langacp_running_turn", default=None)


def enter_turn(reporter: TurnReporter) -> Token[TurnReporter | None]:
    """Make ``reporter`` the running turn of this task (and of the graph it runs)."""
    return _CURRENT.set(reporter)


def running_turn(session: SessionContext) -> TurnReporter | None:
    """The reporter of ``session``'s running turn, if this task runs one."""
    reporter = _CURRENT.get()
    return reporter if reporter is not None and reporter.session is session else None


def running_session() -> SessionContext | None:
    """The session whose turn this task runs, if any."""
    reporter = _CURRENT.get()
    return reporter.session if reporter is not None else None


def pending_tool_calls(session: SessionContext) -> list[ToolCallInfo]:
    """Tool calls of ``session``'s running turn the client was shown and that have not started, in order."""
    reporter = running_turn(session)
    return reporter.pending_calls() if reporter is not None else []
