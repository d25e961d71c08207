"""A live session: its context, compiled graph, update outbox and running turn, and its thread's state."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp.schema import PromptResponse

    from langacp.bridge.outbox import UpdateSink
    from langacp.stores import SessionRecord
    from langacp.types import SessionContext

__all__ = ["Session"]


@dataclass
class Session:
    """A live session: its context, its compiled graph, its update outbox, its running turn."""

    context: SessionContext
    record: SessionRecord
    graph: Any
    sink: UpdateSink
    guarded: bool = False
    """Built by a factory, so the core's tool guard runs inside the graph."""
    turn: asyncio.Task[PromptResponse] | None = None
    cancellable: bool = False
    """The turn is running the graph; once it is cleaning up, a cancel must not interrupt it."""
    cancel_requested: bool = False
    """A cancel arrived before the turn began running the graph (e.g. in the same read as its
    prompt: the SDK starts one task per message, and the turn's own task starts after the
    cancel's): the turn ends as ``cancelled`` as soon as it starts."""
    started: bool = False
    """The turn began running the graph (it may be cleaning up now)."""
    ids: Any = None
    """The session's :class:`~langacp.bridge.tool_ids.ToolCallIds`: tool call ids unique across turns."""
    offer: Any = None
    """Its modes and config options as gathered when it opened (for its commands), until its response takes them."""
    paused: tuple[Any, ...] = ()
    """The interrupts its thread is paused on (a question waiting for the user's answer), as last read."""

    def turn_done(self, task: asyncio.Task[Any]) -> None:
        """Forget the turn once it ended: its task holds the turn's context, result or failure (with its frames)."""
        if self.turn is task:
            self.turn = None

    def take_offer(self) -> Any:
        """The modes and config options gathered as the session opened (once; ``None`` after)."""
        offer, self.offer = self.offer, None
        return offer

    @property
    def busy(self) -> bool:
        """A prompt turn is running (or cleaning up)."""
        return self.turn is not None and not self.turn.done()

    def cancel_turn(self) -> None:
        """Stop the running turn; it still answers its prompt (``cancelled``)."""
        if self.turn is not None and self.busy and self.cancellable:
            self.cancellable = False
            self.turn.cancel()
        elif self.turn is not None and self.busy and not self.started:
            self.cancel_requested = True

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.record.thread_id or self.context.session_id}}

    async def messages(self) -> list[Any]:
        """The messages of the session's thread (none if its graph has no checkpointer)."""
        if getattr(self.graph, "checkpointer", None) is None:
            return []  # a factory that ignores setup.checkpointer: nothing is stored
        state = await self.graph.aget_state(self.config)
        self.paused = tuple(getattr(state, "interrupts", None) or ())
        messages: list[Any] = (state.values or {}).get("messages") or []
        return messages

    async def pending_interrupts(self) -> tuple[Any, ...]:
        """The interrupts the thread is paused on now (read only when the last turn left it paused)."""
        if self.paused and getattr(self.graph, "checkpointer", None) is not None:
            state = await self.graph.aget_state(self.config)
            self.paused = tuple(getattr(state, "interrupts", None) or ())
        return self.paused
