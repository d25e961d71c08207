"""Replay a stored thread as ``session/update`` notifications (``session/load``).

What is replayed is read from the LangGraph checkpoint, so the editor shows exactly what the
model will see on the next turn: user messages, thoughts, answers, and each tool call with
its final status and content. Content goes through the same hooks as live updates
(``langacp_output_block``, the tool mappers). A user's text is sent as it is; the user's
other blocks (images, files, …) are mapped like output blocks and sent as ``user_message_chunk``.
A human message the agent harness added rather than the user typed (LangChain's notification
metadata, e.g. ``SummarizationMiddleware``'s summary) is the agent's: sent as ``agent_thought_chunk``.
A user's plain text, each tool call's start and the agent's plain text chunks (given their message's
id) are built as their JSON (:mod:`langacp.protocol.wire`: the bytes their validated models dump to,
which are built instead when anything is unusual).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, get_notification_metadata

from langacp.bridge.content import human_updates, message_blocks, notification_updates
from langacp.bridge.outbox import new_message_id
from langacp.bridge.tool_ids import ToolCallIds
from langacp.protocol.wire import chunk_with_id, tool_call_start, user_text_chunk
from langacp.types import SessionContext, ToolCallInfo

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langacp.bridge.outbox import UpdateSink
    from langacp.plugins import Plugins

__all__ = ["pair_results", "replay_messages", "replay_questions", "replayed_ids"]

_NOT_CONTENT = {"tool_call", "tool_call_chunk", "invalid_tool_call", "server_tool_call", "server_tool_result"}
"""Blocks of an AI message that are not shown as content (tool calls are replayed on their own)."""


def replay_messages(plugins: Plugins, session: SessionContext, messages: list[Any], sink: UpdateSink) -> None:
    """Queue ``messages`` (a thread's LangChain messages) on ``sink`` as session updates."""
    results = pair_results(messages)
    ids = ToolCallIds()  # as live: one alias per model id and turn
    for position, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            if get_notification_metadata(message) is not None:
                for update in notification_updates(plugins, session, message):
                    sink.put(update, message.id)
                continue  # added within a turn (before a model call): the turn goes on
            ids.new_turn()
            _replay_user(plugins, session, message, sink)
        elif isinstance(message, AIMessage):
            message_id = message.id or new_message_id()
            for block in message_blocks(message):
                if block.get("type") not in _NOT_CONTENT:
                    for update in plugins.output_block(block, session):
                        sink.put(chunk_with_id(update, message_id), message_id)
            for index, tool_call in enumerate(message.tool_calls):
                call = ToolCallInfo.from_tool_call(tool_call)
                acp_id = ids.claim(call.tool_call_id)
                _replay_tool_call(plugins, session, call, results.get((position, index)), sink, acp_id)


def replay_questions(plugins: Plugins, session: SessionContext, interrupts: Sequence[Any], sink: UpdateSink) -> None:
    """Queue the questions a paused thread waits on (``langacp_interrupt_question``) as the agent's message."""
    from acp import update_agent_message_text

    for interrupt in interrupts:
        question = plugins.interrupt_question(getattr(interrupt, "value", None), session)
        if question is not None:
            sink.put(update_agent_message_text(question.text() + "\n"))


def _replay_user(plugins: Plugins, session: SessionContext, message: HumanMessage, sink: UpdateSink) -> None:
    """A user message: its text as is, its other blocks (images, files, …) as the output mappers show them.

    Its chunks are made with the message's id (``user_message_chunk`` with ``messageId``, what
    the sink would otherwise copy each of them to add).
    """
    from acp.schema import UserMessageChunk

    message_id = message.id or new_message_id()
    text = message.content
    if type(text) is str and "reasoning_content" not in message.additional_kwargs:  # the common case: its text
        if text:
            sink.put(user_text_chunk(text, message_id), message_id)
        return

    def chunk(content: Any) -> UserMessageChunk:
        return UserMessageChunk(session_update="user_message_chunk", content=content, message_id=message_id)

    for update in human_updates(plugins, session, message, chunk, others=False):
        sink.put(update, message_id)


def _replay_tool_call(
    plugins: Plugins,
    session: SessionContext,
    call: ToolCallInfo,
    result: ToolMessage | None,
    sink: UpdateSink,
    acp_id: str,
) -> None:
    """A tool call as it ended: completed or failed (no result: the turn stopped), with its result's content.

    ``acp_id`` is the id the client knows it by (the model's own, or its turn's alias).
    """
    status: Literal["completed", "failed"] = "failed" if result is None or result.status == "error" else "completed"
    title = plugins.tool_title(call, session)
    kind = plugins.tool_kind(call, session)
    locations = plugins.tool_locations(call, session) or None
    # As live, the result's content replaces what was shown at the start: the start content (an
    # edit's proposed diff, read from the file as it is now) is asked only when there is none.
    content = plugins.tool_result_content(call, result, session) if result is not None else None
    sink.put(
        tool_call_start(
            acp_id,
            name=call.name or None,
            title=title,
            kind=kind,
            status=status,
            content=content or plugins.tool_start_content(call, session) or None,
            locations=locations,
            raw_input=call.args,
            raw_output=result.content if result is not None else None,
        )
    )
    if result is not None:
        for update in plugins.tool_updates(call, result, session):
            if getattr(update, "tool_call_id", None) == call.tool_call_id:
                update = update.model_copy(update={"tool_call_id": acp_id})
            sink.put(update)


def pair_results(messages: list[Any]) -> dict[tuple[int, int], ToolMessage]:
    """Each tool call's result, by (message position, call index): a result answers the latest
    call with its id before it, so a model that reuses an id across turns keeps each result
    with its own call."""
    open_calls: dict[str, tuple[int, int]] = {}
    results: dict[tuple[int, int], ToolMessage] = {}
    for position, message in enumerate(messages):
        if isinstance(message, AIMessage):
            for index, tool_call in enumerate(message.tool_calls):
                if tool_call.get("id"):
                    open_calls[str(tool_call["id"])] = (position, index)
        elif isinstance(message, ToolMessage):
            key = open_calls.pop(message.tool_call_id, None)
            if key is not None:
                results[key] = message
    return results


def replayed_ids(messages: list[Any]) -> set[str]:
    """The tool call ids a replay of ``messages`` sends (to seed the session's
    :class:`~langacp.bridge.tool_ids.ToolCallIds`)."""
    ids = ToolCallIds()
    for message in messages:
        if isinstance(message, HumanMessage):
            if get_notification_metadata(message) is None:
                ids.new_turn()
        elif isinstance(message, AIMessage):
            for tool_call in message.tool_calls:
                ids.claim(str(tool_call.get("id") or ""))
    return ids.used
