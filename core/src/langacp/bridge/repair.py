"""Thread repair: a thread whose turn was cut short (cancel, error, crash) made fit for the next turn."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

__all__ = ["CANCELLED_TEXT", "repair_thread", "unanswered_tool_calls"]

CANCELLED_TEXT = "Cancelled by the user before it finished."


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
