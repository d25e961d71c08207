"""Tool calls a client may cancel one by one (ACP v2 ``tool_call/cancel``).

On a session :func:`enable` d for it (a v2 client's), the tool guard runs each tool call through
:func:`run`: as a task of its own, so :func:`cancel` stops that call alone. The call then ends
with :class:`ToolCallCancelled` (the guard makes it a failed result the model reads, and the turn
goes on); cancelling the whole turn still cancels the turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["ToolCallCancelled", "cancel", "disable", "enable", "run"]

T = TypeVar("T")

_RUNNING: dict[str, dict[str, asyncio.Task[object]]] = {}
"""Per enabled session id: its running tool calls by the model's tool call id."""
_REQUESTED: dict[str, set[str]] = {}
"""Per enabled session id: tool calls cancelled before they started running."""


class ToolCallCancelled(Exception):
    """The client cancelled this one tool call."""


def enable(session_id: str) -> None:
    """The session's client may cancel its tool calls one by one."""
    _RUNNING.setdefault(session_id, {})
    _REQUESTED.setdefault(session_id, set())


def disable(session_id: str) -> None:
    _RUNNING.pop(session_id, None)
    _REQUESTED.pop(session_id, None)


def enabled(session_id: str) -> bool:
    return session_id in _RUNNING


async def run(session_id: str, call_id: str, start: Callable[[], Awaitable[T]]) -> T:
    """``await start()``, cancellable on its own by :func:`cancel` when the session is enabled."""
    running = _RUNNING.get(session_id)
    if running is None:
        return await start()
    requested = _REQUESTED.setdefault(session_id, set())

    async def call() -> T:
        return await start()

    task: asyncio.Task[T] = asyncio.get_running_loop().create_task(call())  # copies the context (the run's config)
    running[call_id] = task  # type: ignore[assignment]
    if call_id in requested:
        task.cancel()
    try:
        return await task
    except asyncio.CancelledError:
        me = asyncio.current_task()
        if call_id in requested and (me is None or me.cancelling() == 0):
            raise ToolCallCancelled(call_id) from None
        raise
    finally:
        running.pop(call_id, None)
        requested.discard(call_id)


def cancel(session_id: str, call_id: str) -> bool:
    """Cancel the tool call ``call_id`` (the model's id) now, or as it starts; ``False`` if the session cannot."""
    running = _RUNNING.get(session_id)
    if running is None:
        return False
    _REQUESTED.setdefault(session_id, set()).add(call_id)
    task = running.get(call_id)
    if task is not None:
        task.cancel()
    return True
