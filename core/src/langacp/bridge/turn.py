"""The turn state machine: one prompt turn of a session reported as ACP updates, whatever watches the graph.

Each tool call goes through ``pending`` → ``in_progress`` → ``completed`` / ``failed`` once,
however many sources (the stream, the tool guard, the library's callbacks) tell about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, get_notification_metadata

from langacp.bridge.content import notification_updates
from langacp.bridge.outbox import new_message_id
from langacp.types import SessionContext, ToolCallInfo, TurnOutcome

if TYPE_CHECKING:
    from langacp.bridge.outbox import UpdateSink
    from langacp.plugins import Plugins

__all__ = ["TurnReporter", "add_usage"]


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

    The server's :class:`~langacp.bridge.stream.TurnRunner` feeds it from ``astream``; the library pieces
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
        self._anonymous: str | None = None
        self._compaction: str | None = None
        """The id of the compaction reported ``in_progress`` and not finished yet."""

    # -- model output ----------------------------------------------------------------------------

    def on_message(self, message: Any, metadata: dict[str, Any]) -> None:
        """A streamed message (token chunk, or a complete message) from node ``metadata["langgraph_node"]``."""
        if not isinstance(message, AIMessage):  # AIMessageChunk is an AIMessage
            if isinstance(message, ToolMessage):
                self.finish_tool(message)
            elif isinstance(message, HumanMessage) and get_notification_metadata(message) is not None:
                # a summary: shown as session/load shows it
                compaction, self._compaction = self._compaction, None
                for update in notification_updates(self.plugins, self.session, message, compaction):
                    self.sink.put(update, message.id)
            return
        node = metadata.get("langgraph_node")
        if node == "tools":
            return  # a model called from inside a tool: not the agent's own answer
        self.partial_node = node
        message_id = self._message_id(message)
        content = message.content
        if isinstance(content, str) and not message.tool_calls and not getattr(message, "tool_call_chunks", None):
            if content:  # a streamed token, most of the time
                self.partial_text.append(content)
                self.sink.put_text(content, message_id)
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
                    self.sink.put_block(block, message_id)
        response_metadata = message.response_metadata
        if response_metadata:
            reason = response_metadata.get("finish_reason") or response_metadata.get("stop_reason")
            if reason:
                self.outcome.finish_reason = str(reason)

    def _message_id(self, message: AIMessage) -> str:
        """The ``messageId`` of ``message``'s chunks: LangChain's id (the checkpoint keeps it, so a
        replay sends the same), or one made for the message being streamed when it has none."""
        if message.id:
            return str(message.id)
        if self._anonymous is None:
            self._anonymous = new_message_id()
        return self._anonymous

    def compaction_started(self) -> None:
        """A summary of the history starts being made: ``compaction_update`` ``in_progress`` (if shown)."""
        from langacp.protocol import client_compaction, compaction_update

        if self._compaction is None and client_compaction(self.session.client_capabilities):
            self._compaction = _compaction_id()
            self.sink.put(compaction_update(self._compaction, "in_progress"))

    def compaction_id(self) -> str:
        """The id of the compaction being made (a new one if none was reported): the summary message's id."""
        if self._compaction is None:
            self._compaction = _compaction_id()
        return self._compaction

    def compaction_chunk(self, text: str) -> None:
        """The summary model streamed ``text``: a ``compaction_summary_chunk`` (joined to an unsent one)."""
        from acp import text_block

        from langacp.protocol import CompactionSummaryChunk

        if self._compaction is None:
            return
        tail = self.sink.tail()
        if isinstance(tail, CompactionSummaryChunk) and tail.compaction_id == self._compaction:
            tail.content.text += text  # type: ignore[union-attr]  # only text chunks are queued here
            return
        self.sink.put(CompactionSummaryChunk(compactionId=self._compaction, content=text_block(text)))

    def compaction_failed(self, error: str) -> None:
        """Making the summary raised: the compaction reported ``in_progress`` is ``failed``."""
        from langacp.protocol import compaction_update

        if self._compaction is not None:
            self.sink.put(compaction_update(self._compaction, "failed", error=error[:500]))
            self._compaction = None

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
        self._anonymous = None  # the next message without an id is another one
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
        if not call_id:
            return
        state = self.tools.get(call_id)
        if state is None:
            from langacp.protocol import start_tool_call

            call = ToolCallInfo(call_id, name, dict(args or {}))
            state = self.tools[call_id] = _ToolState(call, has_args=args is not None)
            self.sink.put(
                start_tool_call(
                    call_id,
                    name=name or None,
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
                from acp import update_tool_call

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
        """Mark every tool call still pending or running as failed (cancel, error), and a compaction ``cancelled``."""
        from acp import text_block, tool_content, update_tool_call

        if self._compaction is not None:
            from langacp.protocol import compaction_update

            self.sink.put(compaction_update(self._compaction, "cancelled", error=reason[:500]))
            self._compaction = None

        for call_id, state in self.tools.items():
            if state.status not in ("completed", "failed"):
                self.show_arguments(call_id)
                state.status = "failed"
                self.sink.put(update_tool_call(call_id, status="failed", content=[tool_content(text_block(reason))]))


def _compaction_id() -> str:
    return new_message_id().replace("langacp-", "compaction-")


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
