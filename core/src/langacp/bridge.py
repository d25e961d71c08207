"""The LangGraph stream → ACP ``session/update`` bridge: one prompt turn of one session.

Stream modes used: ``messages`` (tokens, reasoning, tool-call chunks, tool results) and
``updates`` (complete tool calls with their arguments, interrupts). A tool's start comes from
the core's tool guard (a per-session factory's graph) or from :class:`ToolStarts`, a callback
handler that listens to nothing else. Updates go through an :class:`UpdateSink` so the graph
never waits on the pipe.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage, get_notification_metadata
from langchain_core.runnables.config import RunnableConfig, merge_configs

from langacp.types import SessionContext, ToolCallInfo, TurnOutcome

if TYPE_CHECKING:
    from langacp.plugins import Plugins

__all__ = [
    "ToolCallIds",
    "ToolStarts",
    "TurnReporter",
    "TurnRunner",
    "UpdateSink",
    "repair_thread",
    "unanswered_tool_calls",
]

log = logging.getLogger("langacp.bridge")

STREAM_MODES = ["messages", "updates"]
CANCELLED_TEXT = "Cancelled by the user before it finished."
_MAX_COALESCE = 64 * 1024
NOT_ANSWERED_TEXT = "Not run: the agent paused for human input and nothing answered it."
NO_RESUME_TEXT = (
    "\n\nThe agent paused for human input (a LangGraph interrupt), and no installed "
    "langacp plugin answers interrupts (hook langacp_resume_interrupt), so the turn ends here."
)


TEXT_WINDOW = 1 / 60
"""How long after a send a stream's next tokens gather before they are sent (seconds): one frame
of a 60 Hz display, so an editor redraws the text as often as it could show it, with half as many
messages to serialise and parse as a 5 ms window (measured: 145 instead of 311 for 20,000 tokens)."""

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

    def __init__(
        self,
        send: Callable[[Any], Awaitable[None]],
        map_block: Callable[[dict[str, Any]], list[Any]] | None = None,
        *,
        window: float = TEXT_WINDOW,
        max_window: float = MAX_TEXT_WINDOW,
    ) -> None:
        self._send = send
        self._map_block = map_block
        self._window = window
        self._max_window = max(window, max_window)
        self._queue: deque[Any] = deque()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._broken = False
        self._last_send = -math.inf  # never sent: a first token does not wait (the loop clock may start near 0)
        self._hurry = False
        """A :meth:`flush` is waiting: send without windows until the queue is empty."""
        self._timer: asyncio.Future[None] | None = None

    def put(self, update: Any) -> None:
        """Queue an ACP session update (an ``acp.schema`` model)."""
        if self._broken:
            return
        self._queue.append(update)
        self._idle.clear()
        self._wake.set()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="langacp.updates")

    def put_block(self, block: dict[str, Any]) -> None:
        """Queue a LangChain output content block, mapped to updates when it is sent.

        A text (or reasoning) block joins the one at the end of the queue (not sent yet) when it
        holds nothing but its text and the stream's ``index`` / ``id``: the first block's other
        keys stay, the texts are joined (at most ~64 KB a message).
        """
        key = block.get("type")
        if key != "text" and key != "reasoning":
            self.put(_Block(block))
            return
        text = block.get(key)
        if block.keys() <= _JOINABLE_KEYS[key] and self._join(key, str(text or "")):
            return
        if isinstance(text, str):
            self.put(_Block(block, key, [text], len(text)))
        else:
            self.put(_Block(block))

    def put_text(self, text: str) -> None:
        """Queue streamed agent message text: ``put_block({"type": "text", "text": text})``, for each token."""
        if not self._join("text", text):
            self.put(_Block({"type": "text", "text": text}, "text", [text], len(text)))

    def _join(self, key: str, text: str) -> bool:
        """Join ``text`` to the unsent ``key`` block at the end of the queue, if there is one with room."""
        queue = self._queue
        if queue and not self._broken:
            tail = queue[-1]
            if tail.__class__ is _Block and tail.key == key and tail.size < _MAX_COALESCE:
                tail.parts.append(text)
                tail.size += len(text)
                return True  # the sender is awake or waiting for its window, and sends the tail
        return False

    async def flush(self) -> None:
        """Wait until every queued update has been written (sent now, without waiting for a window)."""
        if self._idle.is_set():
            return
        self._hurry = True
        if self._timer is not None and not self._timer.done():
            self._timer.set_result(None)
        await self._idle.wait()

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def _take(self) -> list[Any]:
        """The next updates to send: one update, or the mapping of a (joined) content block."""
        item = self._queue.popleft()
        if item.__class__ is not _Block:
            return [item]
        block = item.block
        if len(item.parts) > 1 and item.key is not None:
            block = {**block, item.key: "".join(item.parts)}
        return self._map_block(block) if self._map_block is not None else []

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            # A busy session: let what follows gather (tokens into one message) for a window.
            if self._queue and _joinable(self._queue[0]):
                await self._gather(loop)
            else:
                await self._pause(self._window)
            self._wake.clear()
            while self._queue:
                if len(self._queue) == 1 and _joinable(self._queue[0]) and len(self._queue[0].parts) == 1:
                    # A token that arrived while the last message was written (a producer as fast
                    # as the pipe): let the next ones join it, as after an idle pause.
                    await self._gather(loop)
                for update in self._take():
                    try:
                        await self._send(update)
                    except (ConnectionError, RuntimeError) as exc:
                        log.warning("client connection closed; dropping session updates (%s)", exc)
                        self._broken = True
                        self._queue.clear()
                        break
                    except Exception:
                        log.exception("failed to send a session update")
                self._last_send = loop.time()
            self._hurry = False
            self._idle.set()

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


class ToolCallIds:
    """Makes the ``toolCallId`` s a session sends unique, whatever ids the model reuses.

    Some providers number tool calls per response (``call_0`` in every turn), and a model
    restarted by ``session/load`` numbers them again: an editor receiving the same id in two
    turns merges the calls. Every ACP id sent for the session is remembered; a model id that
    was already used in an earlier turn gets a turn-scoped alias (``call_0#2``, the first free
    one), which every update and permission request of that turn uses. The checkpoint keeps
    the model's own ids; :func:`langacp.replay.replay_messages` aliases the same way, so a
    replayed call keeps the id it had live.
    """

    def __init__(self) -> None:
        self.used: set[str] = set()
        self._turn: dict[str, str] = {}

    def new_turn(self) -> None:
        """Model ids seen from now on belong to a new turn."""
        self._turn = {}

    def reset(self) -> None:
        """Forget every id (before a replay sends the whole history again)."""
        self.used.clear()
        self._turn = {}

    def claim(self, model_id: str) -> str:
        """The ACP id of a tool call the model named ``model_id`` in this turn (new calls get a free one)."""
        known = self._turn.get(model_id)
        if known is not None:
            return known
        acp_id = first_free(model_id, self.used)
        self.used.add(acp_id)
        self._turn[model_id] = acp_id
        return acp_id

    def of(self, model_id: str) -> str:
        """The ACP id of ``model_id`` in this turn (itself when this turn has not announced it)."""
        return self._turn.get(model_id, model_id)

    def outgoing(self, update: Any) -> Any:
        """``update`` (a ``session/update`` payload) with its tool call id aliased, if it has one."""
        call_id = getattr(update, "tool_call_id", None)
        if not isinstance(call_id, str):
            return update
        kind = getattr(update, "session_update", None)
        acp_id = self.claim(call_id) if kind == "tool_call" else self.of(call_id)
        return update if acp_id == call_id else update.model_copy(update={"tool_call_id": acp_id})


def first_free(model_id: str, used: set[str]) -> str:
    """``model_id`` if unused, else the first unused ``model_id#N`` (N from 2)."""
    if model_id not in used:
        return model_id
    n = 2
    while f"{model_id}#{n}" in used:
        n += 1
    return f"{model_id}#{n}"


class _Block:
    """A queued content block; a text or reasoning block's ``parts`` are its text and the texts joined to it."""

    __slots__ = ("block", "key", "parts", "size")

    def __init__(
        self, block: dict[str, Any], key: str | None = None, parts: list[str] | None = None, size: int = 0
    ) -> None:
        self.block = block
        self.key = key
        """``"text"`` or ``"reasoning"`` (where the block's text is) when texts can join it, else ``None``."""
        self.parts: list[str] = parts if parts is not None else []
        self.size = size


_JOINABLE_KEYS = {key: frozenset({"type", key, "index", "id"}) for key in ("text", "reasoning")}
"""What a text or reasoning block may hold to join the queued one: its text, and the stream's ``index`` / ``id``."""


@dataclass
class _ToolState:
    call: ToolCallInfo
    status: str = "pending"
    has_args: bool = False
    held: dict[str, Any] | None = None
    """Arguments known and not sent yet: the call described with them (title, kind, locations, start
    content, as the hooks said when the arguments arrived), sent with ``in_progress`` or on their own
    (:meth:`TurnReporter.show_arguments`)."""


class TurnReporter:
    """Reports one turn of a session as ACP updates, from whatever watches the graph run.

    The server's :class:`TurnRunner` feeds it from ``astream``; the library pieces
    (``langacp.lib``: middleware and callback handler) feed it from inside the graph. Each
    tool call is reported once per stage, however many sources tell about it, by fixed rules
    (never by timing):

    1. ``tool_call`` ``pending`` when the call is first seen: with ``rawInput`` and the start
       content when its arguments are complete then (a message that was not streamed, a
       chunk that is the whole message), without them when it comes from the first streamed
       chunk of the call (the editor shows the card while the arguments stream);
    2. ``tool_call_update`` ``in_progress`` when the tool starts, carrying the arguments
       (``rawInput``, title, kind, locations, start content) if step 1 did not;
    3. ``tool_call_update`` ``completed`` / ``failed`` with the result.

    Arguments learnt after step 1 are held for step 2 and sent on their own
    (:meth:`show_arguments`) before anything the client must see them for first: a
    permission request for the call (``SessionContext.request_permission``), an interrupt,
    the end of the turn (cancelled, failed, capped or not), a result of a call that never
    started (a refused call, a remote graph without a start event).
    """

    def __init__(self, plugins: Plugins, session: SessionContext, sink: UpdateSink) -> None:
        self.plugins = plugins
        self.session = session
        self.sink = sink
        self.outcome = TurnOutcome()
        self.tools: dict[str, _ToolState] = {}
        self.partial_text: list[str] = []
        """Text of the model response being streamed and not yet in the checkpoint."""
        self.partial_node: str | None = None
        self._model_messages: set[str] = set()

    # -- model output ----------------------------------------------------------------------------

    def on_message(self, message: Any, metadata: dict[str, Any]) -> None:
        """A streamed message (token chunk, or a complete message) from node ``metadata["langgraph_node"]``."""
        if not isinstance(message, AIMessage):  # AIMessageChunk is an AIMessage
            if isinstance(message, ToolMessage):
                self.finish_tool(message)
            elif isinstance(message, HumanMessage) and get_notification_metadata(message) is not None:
                from langacp.replay import notification_updates  # a summary: shown as session/load shows it

                for update in notification_updates(self.plugins, self.session, message):
                    self.sink.put(update)
            return
        node = metadata.get("langgraph_node")
        if node == "tools":
            return  # a model called from inside a tool: not the agent's own answer
        self.partial_node = node
        content = message.content
        if isinstance(content, str) and not message.tool_calls and not getattr(message, "tool_call_chunks", None):
            if content:  # a streamed token, most of the time
                self.partial_text.append(content)
                self.sink.put_text(content)
        else:
            for raw_block in message.content_blocks:
                block: dict[str, Any] = dict(raw_block)
                btype = block.get("type")
                if btype == "text" and block.get("text"):
                    self.partial_text.append(str(block["text"]))
                if btype == "tool_call_chunk":
                    self._on_tool_call_chunk(block)
                elif btype == "tool_call":
                    self.announce(str(block.get("id") or ""), str(block.get("name") or ""), block.get("args"))
                elif btype not in ("invalid_tool_call", "server_tool_call", "server_tool_result"):
                    self.sink.put_block(block)
        response_metadata = message.response_metadata
        if response_metadata:
            reason = response_metadata.get("finish_reason") or response_metadata.get("stop_reason")
            if reason:
                self.outcome.finish_reason = str(reason)

    def say(self, text: str) -> None:
        """Send ``text`` to the user as agent message text."""
        self.sink.put_block({"type": "text", "text": text})

    def _on_tool_call_chunk(self, block: dict[str, Any]) -> None:
        # Only the first chunk of a tool call carries its id and name; the arguments are
        # reported once the complete message arrives.
        call_id = block.get("id")
        if call_id and block.get("name"):
            self.announce(call_id, block["name"], None)

    def on_model_message(self, message: AIMessage, *, announce: bool = True) -> None:
        """A model call finished with ``message``: count it and (if ``announce``) report its tool calls' arguments.

        A message with an id is counted once, however many sources report it.
        """
        if message.id:
            if message.id in self._model_messages:
                return
            self._model_messages.add(message.id)
        outcome = self.outcome
        self.partial_text.clear()  # now in the checkpoint
        outcome.model_calls += 1
        outcome.last_message = message
        reason = (message.response_metadata or {}).get("finish_reason") or (message.response_metadata or {}).get(
            "stop_reason"
        )
        outcome.finish_reason = str(reason) if reason else outcome.finish_reason
        add_usage(outcome.usage, message.usage_metadata)
        for tool_call in message.tool_calls:
            outcome.tool_calls += 1
            if announce:
                self.announce(tool_call.get("id") or "", tool_call["name"], tool_call.get("args") or {})

    # -- tool call lifecycle -------------------------------------------------------------------

    def tool_started(self, call_id: str, name: str, args: dict[str, Any] | None) -> None:
        """A tool begins to run: report ``in_progress``, with held arguments (announcing the call first if needed)."""
        from acp import update_tool_call

        self.announce(call_id, name, args)
        state = self.tools.get(call_id)
        if state is not None and state.status == "pending":
            state.status = "in_progress"
            if state.held is not None:
                described, state.held = state.held, None
                self.sink.put(update_tool_call(call_id, status="in_progress", raw_input=state.call.args, **described))
            else:
                self.sink.put(update_tool_call(call_id, status="in_progress"))

    def show_arguments(self, call_id: str | None = None, args: dict[str, Any] | None = None) -> None:
        """Send held arguments now, on their own: of call ``call_id`` (learning ``args`` for it if
        they are not known yet), or of every call when ``call_id`` is ``None``.

        For whatever must not reach the client before it has seen a call's arguments: a
        permission request, an interrupt, the end of the turn, the result of a call that
        never started. A call never announced is left alone.
        """
        from acp import update_tool_call

        if call_id is None:
            states = list(self.tools.items())
        else:
            found = self.tools.get(call_id)
            if found is None:
                return
            if args is not None and not found.has_args:
                self.announce(call_id, found.call.name, args)
            states = [(call_id, found)]
        for held_id, state in states:
            if state.held is not None:
                described, state.held = state.held, None
                self.sink.put(update_tool_call(held_id, raw_input=state.call.args, **described))

    def pending_calls(self) -> list[ToolCallInfo]:
        """Tool calls announced to the client and not started, in order."""
        return [state.call for state in self.tools.values() if state.status == "pending"]

    def _describe(self, call: ToolCallInfo, *, has_args: bool = True) -> dict[str, Any]:
        # start content (a proposed diff, …) is derived from the arguments: not asked for without them
        return self.plugins.describe_tool(call, self.session, content=has_args)

    def known_call(self, call: ToolCallInfo) -> ToolCallInfo:
        """The turn's own copy of ``call`` when it has the same name and arguments (its kind and
        description already asked of the plugins), else ``call``."""
        state = self.tools.get(call.tool_call_id)
        if state is not None and state.has_args and state.call.name == call.name and state.call.args == call.args:
            return state.call
        return call

    def announce(self, call_id: str, name: str, args: dict[str, Any] | None) -> None:
        """Report a tool call: ``tool_call`` the first time (with ``args`` if known); arguments
        learnt later are held for ``in_progress`` (see :meth:`show_arguments`)."""
        from acp import start_tool_call, update_tool_call

        if not call_id:
            return
        state = self.tools.get(call_id)
        if state is None:
            call = ToolCallInfo(call_id, name, dict(args or {}))
            state = self.tools[call_id] = _ToolState(call, has_args=args is not None)
            self.sink.put(
                start_tool_call(
                    call_id,
                    status="pending",
                    raw_input=args if args is not None else None,
                    **self._describe(call, has_args=args is not None),
                )
            )
        elif args is not None and not state.has_args:
            state.call = ToolCallInfo(call_id, name or state.call.name, dict(args))
            state.has_args = True
            # Described now, not when sent: the hooks see the call when its arguments arrive,
            # before the tool runs (an edit's start content reads the file it will change).
            if state.status == "pending":
                state.held = self._describe(state.call)
            else:  # it started before its arguments were known: they cannot wait for in_progress
                self.sink.put(update_tool_call(call_id, raw_input=args, **self._describe(state.call)))

    def finish_tool(self, message: ToolMessage) -> None:
        """A tool produced ``message``: report ``completed`` / ``failed`` with the result's content."""
        from acp import update_tool_call

        call_id = message.tool_call_id
        state = self.tools.get(call_id)
        if state is None:
            self.announce(call_id, message.name or "tool", {})
            state = self.tools[call_id]
        if state.status in ("completed", "failed"):
            return
        self.show_arguments(call_id)  # a call that never started (refused, no start event)
        state.status = "failed" if message.status == "error" else "completed"
        content = self.plugins.tool_result_content(state.call, message, self.session)
        self.sink.put(
            update_tool_call(call_id, status=state.status, content=content or None, raw_output=_raw_output(message))  # type: ignore[arg-type]
        )
        for update in self.plugins.tool_updates(state.call, message, self.session):
            self.sink.put(update)

    def close_open_tools(self, reason: str) -> None:
        """Mark every tool call still pending or running as failed (cancel, error)."""
        from acp import text_block, tool_content, update_tool_call

        for call_id, state in self.tools.items():
            if state.status not in ("completed", "failed"):
                self.show_arguments(call_id)
                state.status = "failed"
                self.sink.put(update_tool_call(call_id, status="failed", content=[tool_content(text_block(reason))]))


class TurnRunner(TurnReporter):
    """Streams one turn of a graph and reports it as ACP updates (the server's path)."""

    def __init__(
        self, plugins: Plugins, session: SessionContext, sink: UpdateSink, graph: Any, *, guarded: bool = False
    ) -> None:
        super().__init__(plugins, session, sink)
        self.guarded = guarded
        """The graph runs the core's tool guard, which reports tools starting (see
        :meth:`tool_started`); otherwise a :class:`ToolStarts` handler in the run's callbacks does."""
        self.graph = graph

    async def run(self, graph_input: Any, config: dict[str, Any], outcome: TurnOutcome) -> None:
        """Stream the graph until the turn ends; resume interrupts a plugin answers."""
        from langgraph.types import Command

        self.outcome = outcome
        if not self.guarded:
            config = dict(merge_configs(cast("RunnableConfig", config), {"callbacks": [ToolStarts(self)]}))
        while True:
            interrupts: list[Any] = []
            async for mode, data in self.graph.astream(graph_input, config, stream_mode=STREAM_MODES):
                if mode == "messages":
                    self.on_message(data[0], data[1])
                elif mode == "updates":
                    interrupts.extend(self._on_updates(data))
            if not interrupts:
                return
            self.show_arguments()  # the client sees what the paused calls are before anyone is asked
            resume = await self.plugins.resume_interrupt(self.session, interrupts)
            if resume is None:
                # Nobody can answer: the calls waiting on it did not run, and the turn is over
                # as if cancelled (it did not end the way the model meant).
                outcome.interrupted = outcome.cancelled = True
                self.close_open_tools(NOT_ANSWERED_TEXT)
                self.say(NO_RESUME_TEXT)
                return
            graph_input = Command(resume=resume)

    def _on_updates(self, data: dict[str, Any]) -> list[Any]:
        interrupts: list[Any] = []
        for node, update in data.items():
            if node == "__interrupt__":
                interrupts.extend(update if isinstance(update, (list, tuple)) else [update])
                continue
            messages = update.get("messages") if isinstance(update, dict) else None
            messages = getattr(messages, "value", messages)  # langgraph Overwrite
            if not isinstance(messages, (list, tuple)):
                messages = [messages] if messages is not None else []
            if messages and isinstance(messages[0], RemoveMessage) and _removes_all(messages[0]):
                # The history rewritten (SummarizationMiddleware: a summary, then the messages it
                # kept, earlier turns' tool calls among them): nothing in it ran now. A message
                # new in it (the summary) comes through the "messages" stream.
                continue
            for message in messages:
                if isinstance(message, AIMessage):
                    self.on_model_message(message)
                elif isinstance(message, ToolMessage):
                    self.finish_tool(message)
        return interrupts


def _removes_all(message: RemoveMessage) -> bool:
    """``message`` clears the thread's messages (LangGraph's ``REMOVE_ALL_MESSAGES``): what follows replaces them."""
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    return message.id == REMOVE_ALL_MESSAGES


class ToolStarts(BaseCallbackHandler):
    """Reports a tool of the graph itself starting (``in_progress``) to a turn: the precompiled graph's
    tool guard stand-in, listening to nothing else.

    LangGraph's ``tools`` stream mode told the same through a handler that every callback event
    of the run reaches, each streamed token included (~10 % of the agent's time for twenty
    sessions streaming at once, measured). This one is skipped by every event but a tool's
    start (the ``ignore_*`` flags), and reports as that handler does: tools of the graph itself,
    not of a graph run inside a node, nor tagged ``nostream``, and only those called with a tool
    call id. A sync tool runs in a worker thread, whose callbacks run there: the report is then
    handed to the event loop, where it lands before the tool's result.
    """

    run_inline = True
    ignore_llm = True
    ignore_chain = True
    ignore_chat_model = True
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True
    # A tool's start is an "agent" event for LangChain: ignore_agent stays False.

    def __init__(self, turn: TurnReporter) -> None:
        self.turn = turn
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: Any,
        parent_run_id: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        call_id = kwargs.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id or not _own_task(metadata) or "nostream" in (tags or ()):
            return
        name = str((serialized or {}).get("name") or kwargs.get("name") or "tool")
        args = inputs if isinstance(inputs, dict) else None
        if threading.get_ident() == self.thread:
            self.turn.tool_started(call_id, name, args)
        else:
            self.loop.call_soon_threadsafe(self.turn.tool_started, call_id, name, args)


_PUSH = "__pregel_push"
"""The first item of a LangGraph ``@task`` call's ``langgraph_path`` (``langgraph._internal._constants.PUSH``)."""


def _own_task(metadata: dict[str, Any] | None) -> bool:
    """The run is a task of the streamed graph itself, not of a graph run inside one of its nodes.

    As LangGraph's stream handlers tell (``graph_namespace``): the checkpoint namespace holds a
    segment per graph level (``node:id|inner:id``); a ``@task`` call nests one more under its caller.
    """
    if not metadata or not metadata.get("langgraph_checkpoint_ns"):
        return bool(metadata)
    depth = len(str(metadata["langgraph_checkpoint_ns"]).split("|"))
    path = metadata.get("langgraph_path", ())
    nested = 1
    while isinstance(path, tuple) and len(path) == 4 and path[0] == _PUSH and path[-1] is True:
        nested += 1
        path = path[1]
    return depth <= nested


def add_usage(totals: dict[str, int], usage: Any) -> None:
    """Add one message's ``usage_metadata`` to ``totals`` (see ``TurnOutcome.usage``)."""
    if not usage:
        return
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        totals[key] = totals.get(key, 0) + int(usage.get(key) or 0)
    for details, keys in (
        ("input_token_details", ("cache_read", "cache_creation")),
        ("output_token_details", ("reasoning",)),
    ):
        for key in keys:
            value = (usage.get(details) or {}).get(key)
            if value:
                totals[key] = totals.get(key, 0) + int(value)


def _raw_output(message: ToolMessage) -> Any:
    content = message.content
    if isinstance(content, (str, list, dict)):
        return content
    return str(content)


def unanswered_tool_calls(messages: list[Any]) -> list[Any]:
    """The tool calls of the thread's last AI message that no ToolMessage answers."""
    last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last_ai is None:
        return []
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [tc for tc in last_ai.tool_calls if tc.get("id") and tc["id"] not in answered]


async def repair_thread(
    graph: Any,
    config: dict[str, Any],
    reason: str = CANCELLED_TEXT,
    *,
    partial_text: str = "",
    partial_node: str | None = None,
) -> int:
    """Make a thread whose turn was cut short (cancel, error, crash) fit for the next turn.

    Tool calls left without a result get error ToolMessages: providers reject a conversation
    whose last AI message has unanswered tool calls. An answer cut off while streaming is
    kept (``partial_text``), so the model remembers what the user already read. Returns how
    many messages were added.
    """
    if getattr(graph, "checkpointer", None) is None:
        return 0
    nodes = getattr(graph, "nodes", {})
    if partial_text.strip():
        as_node = partial_node if partial_node in nodes else None
        await graph.aupdate_state(config, {"messages": [AIMessage(content=partial_text)]}, as_node=as_node)
        return 1
    state = await graph.aget_state(config)
    missing = unanswered_tool_calls((state.values or {}).get("messages") or [])
    if not missing:
        return 0
    repairs = [ToolMessage(content=reason, tool_call_id=tc["id"], name=tc["name"], status="error") for tc in missing]
    as_node = "tools" if "tools" in nodes else None
    await graph.aupdate_state(config, {"messages": repairs}, as_node=as_node)
    return len(repairs)
