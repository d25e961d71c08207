"""A prompt turn as its caller sees it: the prompt's blocks, the turn's result, its updates as a stream."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from langacp.client.router import Listener

if TYPE_CHECKING:
    from acp.schema import PromptResponse, SessionNotification

__all__ = ["PromptResult", "PromptStream", "Prompting", "prompt_blocks", "prompt_result"]


@dataclass
class PromptResult:
    """How a prompt turn ended, and the whole answer."""

    stop_reason: str
    text: str
    """The agent's message chunks of this turn, joined."""
    response: PromptResponse
    thought: str = ""
    """The agent's thought chunks of this turn, joined."""
    updates: list[Any] = field(default_factory=list)
    """Every update of this turn, in order."""


def prompt_blocks(prompt: str | Sequence[Any]) -> list[Any]:
    """A prompt as ACP content blocks (a string becomes one text block)."""
    from acp import text_block

    return [text_block(prompt)] if isinstance(prompt, str) else list(prompt)


def prompt_result(response: PromptResponse, updates: list[Any]) -> PromptResult:
    """The result of a turn that ended with ``response``, after ``updates``."""
    return PromptResult(
        stop_reason=str(response.stop_reason),
        text="".join(_text(u, "agent_message_chunk") for u in updates),
        response=response,
        thought="".join(_text(u, "agent_thought_chunk") for u in updates),
        updates=updates,
    )


def _text(update: Any, kind: str) -> str:
    if getattr(update, "session_update", None) != kind:
        return ""
    text = getattr(getattr(update, "content", None), "text", None)
    return text if isinstance(text, str) else ""


class Prompting(Protocol):
    """What a :class:`PromptStream` drives (an :class:`~langacp.client.connection.AcpConnection`)."""

    def add_listener(self, listener: Listener, session_id: str | None = None) -> Callable[[], None]: ...

    def prompt(self, session_id: str, prompt: str | Sequence[Any]) -> Awaitable[PromptResult]: ...

    def cancel(self, session_id: str) -> Awaitable[None]: ...


_DONE = object()


class PromptStream:
    """The updates of one prompt turn as an async iterator; :attr:`result` once it ends."""

    def __init__(self, conn: Prompting, session_id: str, prompt: str | Sequence[Any]) -> None:
        self.conn = conn
        self.session_id = session_id
        self.prompt = prompt
        self.result: PromptResult | None = None
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Future[PromptResult] | None = None
        self._remove: Callable[[], None] | None = None

    def __aiter__(self) -> AsyncIterator[SessionNotification]:
        return self

    def _start(self) -> None:
        self._remove = self.conn.add_listener(self._queue.put_nowait, self.session_id)
        self._task = asyncio.ensure_future(self.conn.prompt(self.session_id, self.prompt))
        self._task.add_done_callback(self._ended)

    def _ended(self, _: object) -> None:
        # every update of the turn is queued by now (the SDK waits for them before the response)
        self._queue.put_nowait(_DONE)
        self._finish()

    async def __anext__(self) -> SessionNotification:
        if self._task is None:
            self._start()
        item = await self._queue.get()
        if item is _DONE:
            self._finish()
            assert self._task is not None
            self.result = self._task.result()
            raise StopAsyncIteration
        return item  # type: ignore[no-any-return]

    def _finish(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    async def aclose(self) -> None:
        """Stop early: cancel the turn and wait for it to end."""
        self._finish()
        if self._task is not None and not self._task.done():
            with contextlib.suppress(Exception):
                await self.conn.cancel(self.session_id)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                self.result = await self._task
