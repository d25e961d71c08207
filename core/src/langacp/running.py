"""The running turn of a session, passed explicitly in a context variable (never through shared state).

The server sets it for the task that runs a prompt, the library (:mod:`langacp.lib`) when a turn
starts; the tool guard, the library middleware, ``SessionContext.request_permission`` and
``pending_tool_calls`` read it. LangGraph runs nodes in copies of the caller's context, so it is
visible inside the graph. This module imports nothing of langacp: the turn is described by
:class:`Turn` (the bridge's ``TurnReporter`` is one).
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any, Protocol

__all__ = ["Turn", "enter_turn", "live_turn", "running_session", "running_turn", "turn_over"]


class Turn(Protocol):
    """What the code running inside a turn may ask of it."""

    @property
    def session(self) -> Any:
        """The session (``SessionContext``) whose turn it is."""

    @property
    def sink(self) -> Any:
        """The session's outbox (``await sink.flush()`` sends what is queued)."""

    def show_arguments(self, call_id: str | None = None, args: dict[str, Any] | None = None) -> None:
        """Queue the held arguments of tool call ``call_id`` (``args``: as the tool guard saw them)."""

    def pending_calls(self) -> list[Any]:
        """Tool calls (``ToolCallInfo``) the client was shown and that have not started, in order."""


_CURRENT: ContextVar[Turn | None] = ContextVar("langacp_running_turn", default=None)
_LIVE: dict[int, Turn] = {}
"""The running turn of each session (by the identity of its context), whatever task asks:
an MCP server's request arrives in its connection's task, not the turn's."""


def enter_turn(turn: Turn) -> Token[Turn | None]:
    """Make ``turn`` the running turn of this task (and of the graph it runs), and of its session."""
    _LIVE[id(turn.session)] = turn
    return _CURRENT.set(turn)


def turn_over(turn: Turn) -> None:
    """``turn`` has ended: its session runs none now (:func:`live_turn`)."""
    if _LIVE.get(id(turn.session)) is turn:
        del _LIVE[id(turn.session)]


def live_turn(session: object) -> Turn | None:
    """The turn ``session`` runs now, asked from any task; ``None`` between turns."""
    turn = running_turn(session) or _LIVE.get(id(session))
    return turn if turn is not None and turn.session is session else None


def running_turn(session: object) -> Turn | None:
    """The running turn of ``session``, if this task runs one."""
    turn = _CURRENT.get()
    return turn if turn is not None and turn.session is session else None


def running_session() -> Any:
    """The session (``SessionContext``) whose turn this task runs, if any."""
    turn = _CURRENT.get()
    return turn.session if turn is not None else None
