"""Code run as in a session's turn, for testing a tool made once that finds its session at each call.

``langacp.api.current_session()`` tells such a tool whose turn calls it; here a test gives it one::

    result = await in_turn(session, lambda: tool.ainvoke({"path": "a.txt"}))
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from langacp.running import enter_turn, turn_over

__all__ = ["in_turn"]

T = TypeVar("T")


class _Turn:
    """The running turn as a tool sees it: only its session (nothing is sent, no call is pending)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.sink = None

    def show_arguments(self, call_id: str | None = None, args: dict[str, Any] | None = None) -> None:
        return None

    def pending_calls(self) -> list[Any]:
        return []


async def in_turn(session: Any, work: Callable[[], Awaitable[T]]) -> T:
    """``await work()`` in a turn of ``session`` (a ``SessionContext``), in a task and context of its
    own as the core runs a prompt: ``current_session()`` is ``session`` there (in worker threads
    it starts too), and nothing of it is left in the caller's context."""

    async def run() -> T:
        turn = _Turn(session)
        enter_turn(turn)
        try:
            return await work()
        finally:
            turn_over(turn)

    return await asyncio.create_task(run(), context=contextvars.copy_context())
