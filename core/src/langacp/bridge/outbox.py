"""A session's outbox: the ``session/update`` notifications of one session, in order, paced.

The producer (a turn, a replay) never waits on the pipe: :class:`UpdateSink` queues updates and
a background task sends them, letting streamed tokens join into one message while a stream is busy.
The task runs only while something waits to be sent: an idle session holds no task, queue or event.
"""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["MAX_TEXT_WINDOW", "TEXT_WINDOW", "UpdateSink", "new_message_id", "with_message_id"]

log = logging.getLogger("langacp.bridge")

_MAX_COALESCE = 64 * 1024

_MAX_BATCH = 512
"""Most updates handed to ``send_many`` at once."""

TEXT_WINDOW = 1 / 60
"""How long after a send a stream's next tokens gather before they are sent (seconds): one frame
of a 60 Hz display, so an editor redraws the text as often as it could show it, with fewer
messages to serialise and parse than a shorter window."""

MAX_TEXT_WINDOW = 0.1
"""Longest a streamed token waits for others to join it, however many sessions stream at once (seconds)."""

_STREAMING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, int] = weakref.WeakKeyDictionary()
"""Per event loop: how many sinks are waiting for tokens to join a queued one (sessions streaming now)."""


class UpdateSink:
    """Ordered outbox of one session's updates, sent by a background task.

    The producer never awaits the pipe. Streamed text arrives as LangChain content blocks
    (:meth:`put_block`): consecutive text (or reasoning) blocks waiting in the queue are
    joined and mapped to ACP updates once, through ``langacp_output_block``, when they are
    sent. While a stream is busy the sender waits a few milliseconds (``window``) after each
    send so the next message carries every token produced meanwhile: a long answer costs
    hundreds of messages instead of one per token, and nothing backs up.

    Every message costs the same to serialise, write and parse whatever it carries, so when
    several sessions of the process stream at once, a session's text window grows with their
    number (up to ``max_window``): the process sends about as many text messages a second
    for twenty streams as for one, each carrying more tokens. A token that arrives after a
    pause is still sent at once, and :meth:`flush` (the end of a turn) sends what is queued
    without waiting for a window.
    """

    __slots__ = (
        "__weakref__",
        "_broken",
        "_hurry",
        "_last_send",
        "_loop",
        "_map_block",
        "_max_window",
        "_queue",
        "_send",
        "_send_many",
        "_task",
        "_timer",
        "_window",
    )

    def __init__(
        self,
        send: Callable[[Any], Awaitable[None]],
        map_block: Callable[[dict[str, Any]], list[Any]] | None = None,
        *,
        window: float = TEXT_WINDOW,
        max_window: float = MAX_TEXT_WINDOW,
        send_many: Callable[[list[Any]], Awaitable[None]] | None = None,
    ) -> None:
        """Made on the session's event loop (a running loop is required): its sender always runs there.

        ``send_many`` (optional) sends several updates in order, as many calls of ``send`` would,
        logging and skipping one that fails (a closed connection raises ``ConnectionError`` or
        ``RuntimeError``): updates queued together (a replay) are then handed to it together.
        """
        self._send = send
        self._send_many = send_many
        self._map_block = map_block
        self._window = window
        self._max_window = max(window, max_window)
        self._loop = asyncio.get_running_loop()
        """The session's loop. Updates put from another thread (a sync tool's callbacks run in a worker
        thread, on a loop of its own) are handed to it, so the sender never runs on a loop that ends."""
        self._queue: deque[Any] | None = None
        """What waits to be sent (``None`` while idle)."""
        self._task: asyncio.Task[None] | None = None
        """The sender, started by a burst's first update on the session's loop; it ends once the queue is empty."""
        self._broken = False
        self._last_send = -math.inf  # never sent: a first token does not wait (the loop clock may start near 0)
        self._hurry = False
        """A :meth:`flush` is waiting: send without windows until the queue is empty."""
        self._timer: asyncio.Future[None] | None = None

    def _elsewhere(self) -> bool:
        """Called outside the session's loop (another thread, or none running): hand the call to the loop."""
        try:
            return asyncio.get_running_loop() is not self._loop
        except RuntimeError:  # a thread without a running loop
            return True

    def _hand_over(self, method: Callable[..., None], *args: Any) -> None:
        """Run ``method(*args)`` on the session's loop, in the order the calls were made; dropped once it is closed."""
        try:
            self._loop.call_soon_threadsafe(method, *args)
        except RuntimeError:  # the session's loop is closed: nobody is left to send to
            log.debug("the session's event loop is closed; dropping a session update")

    def put(self, update: Any, message_id: str | None = None) -> None:
        """Queue an ACP session update (an ``acp.schema`` model).

        A message chunk without a ``messageId`` is given ``message_id`` (a new id when ``None``:
        a message of its own). From another thread it is queued on the session's loop.
        """
        if self._elsewhere():
            self._hand_over(self.put, update, message_id)
            return
        if self._broken:
            return
        if _unnamed_chunk(update):
            update = with_message_id(update, message_id or new_message_id())
        queue = self._queue
        if queue is None:
            queue = self._queue = deque()
        queue.append(update)
        if self._task is None:
            self._task = self._loop.create_task(self._run(), name="langacp.updates")

    def tail(self) -> Any:
        """The last update queued and not sent yet (``None``: none), which its producer may still extend.

        ``None`` outside the session's loop: an update the sender may be sending is never changed.
        """
        if not self._queue or self._elsewhere():
            return None
        tail = self._queue[-1]
        return None if tail.__class__ is _Block else tail

    def put_block(self, block: dict[str, Any], message_id: str | None = None) -> None:
        """Queue a LangChain output content block of message ``message_id``, mapped to updates when it is sent.

        A text (or reasoning) block joins the one at the end of the queue (not sent yet) when it
        holds nothing but its text and the stream's ``index`` / ``id`` and belongs to the same
        message: the first block's other keys stay, the texts are joined (at most ~64 KB a
        message (``None``: any message, or a new one). The message chunks it maps to carry that id.
        """
        if self._elsewhere():
            self._hand_over(self.put_block, block, message_id)
            return
        key = block.get("type")
        if key != "text" and key != "reasoning":
            self.put(_Block(block, message_id=message_id or new_message_id()))
            return
        text = block.get(key)
        if block.keys() <= _JOINABLE_KEYS[key] and self._join(key, str(text or ""), message_id):
            return
        message_id = message_id or new_message_id()
        if isinstance(text, str):
            self.put(_Block(block, key, [text], len(text), message_id))
        else:
            self.put(_Block(block, message_id=message_id))

    def put_text(self, text: str, message_id: str | None = None) -> None:
        """Queue streamed agent message text (``put_block`` of a text block), for each token."""
        if self._elsewhere():
            self._hand_over(self.put_text, text, message_id)
            return
        if not self._join("text", text, message_id):
            self.put(_Block({"type": "text", "text": text}, "text", [text], len(text), message_id or new_message_id()))

    def _join(self, key: str, text: str, message_id: str | None) -> bool:
        """Join ``text`` to the unsent ``key`` block of message ``message_id`` (``None``: any) at the queue's end."""
        queue = self._queue
        if queue and not self._broken:
            tail = queue[-1]
            if (
                tail.__class__ is _Block
                and tail.key == key
                and (message_id is None or tail.message_id == message_id)
                and tail.size < _MAX_COALESCE
            ):
                tail.parts.append(text)
                tail.size += len(text)
                return True  # the sender is awake or waiting for its window, and sends the tail
        return False

    async def flush(self) -> None:
        """Wait until every queued update has been written (sent now, without waiting for a window)."""
        if asyncio.get_running_loop() is not self._loop:  # another thread's loop: the session's loop sends
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self.flush(), self._loop))
            return
        task = self._task
        if task is None:
            return
        self._hurry = True
        if self._timer is not None and not self._timer.done():
            self._timer.set_result(None)
        await asyncio.wait([task])  # the sender ends once the queue is empty (or when closed)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def _take(self) -> list[Any]:
        """The next updates to send: one update, or the mapping of a (joined) content block."""
        assert self._queue is not None  # only the sender calls it, while the queue holds something
        item = self._queue.popleft()
        if item.__class__ is not _Block:
            return [item]
        block = item.block
        if len(item.parts) > 1 and item.key is not None:
            block = {**block, item.key: "".join(item.parts)}
        updates = self._map_block(block) if self._map_block is not None else []
        return [with_message_id(u, item.message_id) if _unnamed_chunk(u) else u for u in updates]

    async def _run(self) -> None:
        """Send what is queued, then end: the next :meth:`put` starts a sender again."""
        loop = self._loop
        queue = self._queue
        assert queue is not None
        try:
            # A busy session: let what follows gather (tokens into one message) for a window.
            if queue and _joinable(queue[0]):
                await self._gather(loop)
            else:
                await self._pause(self._window)
            while queue:
                if len(queue) == 1 and _joinable(queue[0]) and len(queue[0].parts) == 1:
                    # A token that arrived while the last message was written (a producer as fast
                    # as the pipe): let the next ones join it, as after an idle pause.
                    await self._gather(loop)
                batch = self._take()
                if self._send_many is not None:  # the plain updates queued behind it go with it
                    while queue and len(batch) < _MAX_BATCH and queue[0].__class__ is not _Block:
                        batch.append(queue.popleft())
                try:
                    await self._send_batch(batch)
                except (ConnectionError, RuntimeError) as exc:
                    log.warning("client connection closed; dropping session updates (%s)", exc)
                    self._broken = True
                    queue.clear()
                self._last_send = loop.time()
        finally:
            # The queue is empty (nothing awaited since the loop saw it so, and every put runs on
            # this loop), or the sender was cancelled (closed): idle, holding nothing.
            self._hurry = False
            if self._task is asyncio.current_task():
                self._task = None
                self._queue = None

    async def _send_batch(self, batch: list[Any]) -> None:
        """Send ``batch`` in order: in one call to ``send_many`` when there is one (and more than one update)."""
        if self._send_many is not None and len(batch) > 1:
            await self._send_many(batch)
            return
        for update in batch:
            try:
                await self._send(update)
            except (ConnectionError, RuntimeError):
                raise
            except Exception:
                log.exception("failed to send a session update")

    async def _gather(self, loop: asyncio.AbstractEventLoop) -> None:
        """Let tokens join the queued text: one window, times the number of sessions streaming at once."""
        others = _STREAMING.get(loop, 0)
        _STREAMING[loop] = others + 1
        try:
            await self._pause(min(self._window * (1 + others), self._max_window))
        finally:
            _STREAMING[loop] -= 1

    async def _pause(self, seconds: float) -> None:
        """Wait until ``seconds`` after the last send; at once when a flush is waiting."""
        loop = asyncio.get_running_loop()
        delay = self._last_send + seconds - loop.time()
        if delay <= 0 or self._hurry:
            return
        timer = self._timer = loop.create_future()
        handle = loop.call_later(delay, _release, timer)
        try:
            await timer
        finally:
            handle.cancel()
            self._timer = None


def _joinable(item: Any) -> bool:
    return item.__class__ is _Block and item.key is not None


def _release(timer: asyncio.Future[None]) -> None:
    if not timer.done():
        timer.set_result(None)


class _Block:
    """A queued content block; a text or reasoning block's ``parts`` are its text and the texts joined to it."""

    __slots__ = ("block", "key", "message_id", "parts", "size")

    def __init__(
        self,
        block: dict[str, Any],
        key: str | None = None,
        parts: list[str] | None = None,
        size: int = 0,
        message_id: str = "",
    ) -> None:
        self.block = block
        self.message_id = message_id
        self.key = key
        """``"text"`` or ``"reasoning"`` (where the block's text is) when texts can join it, else ``None``."""
        self.parts: list[str] = parts if parts is not None else []
        self.size = size


_JOINABLE_KEYS = {key: frozenset({"type", key, "index", "id"}) for key in ("text", "reasoning")}
"""What a text or reasoning block may hold to join the queued one: its text, and the stream's ``index`` / ``id``."""


_CHUNKS = frozenset({"user_message_chunk", "agent_message_chunk", "agent_thought_chunk"})
"""The message chunk updates, which carry a ``messageId`` (ACP v1: every chunk of one message shares it)."""


def _unnamed_chunk(update: Any) -> bool:
    return getattr(update, "session_update", None) in _CHUNKS and getattr(update, "message_id", "") is None


def new_message_id() -> str:
    """An id for a message that has none of its own (langacp's own text, a model message without an id)."""
    return f"langacp-{uuid.uuid4().hex}"


def with_message_id(update: Any, message_id: str) -> Any:
    """``update`` (a message chunk) with ``messageId``: ``message_id``, or for a thought ``message_id`` + ``/thought``.

    A model message's reasoning and its answer are two messages to a client (a thought and the
    agent's text): each keeps one id, derived from the same LangChain message id.
    """
    if update.session_update == "agent_thought_chunk":
        message_id = f"{message_id}/thought"
    return update.model_copy(update={"message_id": message_id})
