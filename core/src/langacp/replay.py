"""Replay a stored thread as ``session/update`` notifications (``session/load``).

What is replayed is read from the LangGraph checkpoint, so the editor shows exactly what the
model will see on the next turn: user messages, thoughts, answers, and each tool call with
its final status and content. Content goes through the same hooks as live updates
(``langacp_output_block``, the tool mappers). A user's text is sent as it is; the user's
other blocks (images, files, …) are mapped like output blocks and sent as ``user_message_chunk``.
A human message the agent harness added rather than the user typed (LangChain's notification
metadata, e.g. ``SummarizationMiddleware``'s summary) is the agent's: sent as ``agent_thought_chunk``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, get_notification_metadata

from langacp.bridge import first_free
from langacp.types import SessionContext, ToolCallInfo

if TYPE_CHECKING:
    from collections.abc import Callable

    from langacp.bridge import UpdateSink
    from langacp.plugins import Plugins

__all__ = ["notification_updates", "pair_results", "replay_messages", "replayed_ids"]

_NOT_CONTENT = {"tool_call", "tool_call_chunk", "invalid_tool_call", "server_tool_call", "server_tool_result"}
"""Blocks of an AI message that are not shown as content (tool calls are replayed on their own)."""


def replay_messages(plugins: Plugins, session: SessionContext, messages: list[Any], sink: UpdateSink) -> None:
    """Queue ``messages`` (a thread's LangChain messages) on ``sink`` as session updates."""
    results = pair_results(messages)
    used: set[str] = set()
    turn_ids: dict[str, str] = {}  # as live (ToolCallIds): one alias per model id and turn
    for position, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            if get_notification_metadata(message) is not None:
                for update in notification_updates(plugins, session, message):
                    sink.put(update)
                continue  # added within a turn (before a model call): the turn goes on
            turn_ids = {}
            _replay_user(plugins, session, message, sink)
        elif isinstance(message, AIMessage):
            for block in _blocks(message):
                if block.get("type") not in _NOT_CONTENT:
                    for update in plugins.output_block(block, session):
                        sink.put(update)
            for index, tool_call in enumerate(message.tool_calls):
                call = ToolCallInfo.from_tool_call(tool_call)
                acp_id = turn_ids.get(call.tool_call_id) or first_free(call.tool_call_id, used)
                used.add(acp_id)
                turn_ids[call.tool_call_id] = acp_id
                _replay_tool_call(plugins, session, call, results.get((position, index)), sink, acp_id)


def _replay_user(plugins: Plugins, session: SessionContext, message: HumanMessage, sink: UpdateSink) -> None:
    """A user message: its text as is, its other blocks (images, files, …) as the output mappers show them."""
    from acp import update_user_message

    for update in _human_updates(plugins, session, message, update_user_message, others=False):
        sink.put(update)


def notification_updates(plugins: Plugins, session: SessionContext, message: HumanMessage) -> list[Any]:
    """The updates showing a human message the harness added (a summary, a background task's news): the
    agent's thought, never the user's words. Live (:class:`~langacp.bridge.TurnReporter`) and replayed alike."""
    from acp import update_agent_thought

    return _human_updates(plugins, session, message, update_agent_thought, others=True)


def _human_updates(
    plugins: Plugins, session: SessionContext, message: HumanMessage, build: Callable[[Any], Any], *, others: bool
) -> list[Any]:
    """``message``'s blocks as ``build`` updates: text as is, other blocks as the output mappers show them
    (their ``agent_message_chunk`` content rebuilt; their other updates kept only with ``others``)."""
    from acp import text_block

    updates: list[Any] = []
    for block in _blocks(message):
        text = block.get("text") if block.get("type") == "text" else None
        if isinstance(text, str):
            if text:
                updates.append(build(text_block(text)))
            continue
        for update in plugins.output_block(dict(block), session):
            if getattr(update, "session_update", None) == "agent_message_chunk":
                updates.append(build(update.content))
            elif others:
                updates.append(update)
    return updates


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
    from acp import start_tool_call

    status: Literal["completed", "failed"] = "failed" if result is None or result.status == "error" else "completed"
    title = plugins.tool_title(call, session)
    kind = plugins.tool_kind(call, session)
    locations = plugins.tool_locations(call, session) or None
    # As live, the result's content replaces what was shown at the start: the start content (an
    # edit's proposed diff, read from the file as it is now) is asked only when there is none.
    content = plugins.tool_result_content(call, result, session) if result is not None else None
    sink.put(
        start_tool_call(
            acp_id,
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
    """The tool call ids a replay of ``messages`` sends (to seed :class:`~langacp.bridge.ToolCallIds`)."""
    used: set[str] = set()
    turn_ids: dict[str, str] = {}
    for message in messages:
        if isinstance(message, HumanMessage):
            if get_notification_metadata(message) is None:
                turn_ids = {}
        elif isinstance(message, AIMessage):
            for tool_call in message.tool_calls:
                model_id = str(tool_call.get("id") or "")
                acp_id = turn_ids.get(model_id) or first_free(model_id, used)
                used.add(acp_id)
                turn_ids[model_id] = acp_id
    return used


def _blocks(message: Any) -> list[dict[str, Any]]:
    """The message's standard content blocks; plain text without computing them (the common case, and 2x faster).

    Adjacent plain text (or reasoning) blocks of the message are joined into one: a client
    shows consecutive chunks of a message as one text, so one update carries them (a model
    answering in several text parts otherwise costs an update each). A block with anything
    more than its text (citations, extras) stays on its own, as when live updates are joined.
    """
    content = message.content
    if isinstance(content, str) and "reasoning_content" not in message.additional_kwargs:
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    run: list[str] = []  # the texts of the plain blocks joining blocks[-1]
    for raw in message.content_blocks:
        block = dict(raw)
        key = block.get("type")
        if run and key == blocks[-1]["type"] and _plain(block, key):
            run.append(block[key])
            continue
        if len(run) > 1:
            blocks[-1] = {**blocks[-1], blocks[-1]["type"]: "".join(run)}
        blocks.append(block)
        run = [block[key]] if key in ("text", "reasoning") and _plain(block, key) else []
    if len(run) > 1:
        blocks[-1] = {**blocks[-1], blocks[-1]["type"]: "".join(run)}
    return blocks


def _plain(block: dict[str, Any], key: str) -> bool:
    """A text (reasoning) block holding only its text (an ``id`` or ``index`` aside)."""
    return isinstance(block.get(key), str) and not set(block) - {"type", key, "index", "id"}
