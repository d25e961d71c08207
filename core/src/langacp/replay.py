"""Replay a stored thread as ``session/update`` notifications (``session/load``).

What is replayed is read from the LangGraph checkpoint, so the editor shows exactly what the
model will see on the next turn: user messages, thoughts, answers, and each tool call with
its final status and content.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langacp.types import SessionContext, ToolCallInfo

if TYPE_CHECKING:
    from langacp.bridge import UpdateSink
    from langacp.plugins import Plugins

__all__ = ["replay_history"]


async def replay_history(
    plugins: Plugins, session: SessionContext, graph: Any, sink: UpdateSink, config: dict[str, Any]
) -> int:
    """Queue the thread's history on ``sink``; returns the number of messages replayed."""
    from acp import start_tool_call, text_block, update_user_message

    state = await graph.aget_state(config)
    messages = (state.values or {}).get("messages") or []
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    for message in messages:
        if isinstance(message, HumanMessage):
            for block in message.content_blocks:
                text = block.get("text") if block.get("type") == "text" else None
                if isinstance(text, str) and text:
                    sink.put(update_user_message(text_block(text)))
        elif isinstance(message, AIMessage):
            for block in message.content_blocks:
                if block.get("type") in ("text", "reasoning"):
                    for update in plugins.output_block(dict(block), session):
                        sink.put(update)
            for tool_call in message.tool_calls:
                call = ToolCallInfo.from_tool_call(tool_call)
                result = results.get(call.tool_call_id)
                status: Literal["completed", "failed"] = (
                    "failed" if result is None or result.status == "error" else "completed"
                )
                content = plugins.tool_result_content(call, result, session) if result is not None else []
                sink.put(
                    start_tool_call(
                        call.tool_call_id,
                        plugins.tool_title(call, session),
                        kind=plugins.tool_kind(call, session),
                        status=status,
                        content=content or None,
                        locations=plugins.tool_locations(call, session) or None,
                        raw_input=call.args,
                        raw_output=result.content if result is not None else None,
                    )
                )
                if result is not None:
                    for update in plugins.tool_updates(call, result, session):
                        sink.put(update)
    return len(messages)
