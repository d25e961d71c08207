"""The callback handler that tells a turn when a tool of the graph itself starts."""

from __future__ import annotations

from typing import Any

from langacp.bridge.turn_callbacks import TurnCallbacks
from langacp.compat.langgraph import own_graph_task

__all__ = ["ToolStarts"]


class ToolStarts(TurnCallbacks):
    """Reports a tool of the graph itself starting (``in_progress``) to a turn: the precompiled graph's
    tool guard stand-in, listening to nothing else.

    LangGraph's ``tools`` stream mode told the same through a handler that every callback event
    of the run reaches, each streamed token included. This one is skipped by every event but a tool's
    start (the ``ignore_*`` flags), and reports as that handler does: tools of the graph itself,
    not of a graph run inside a node, nor tagged ``nostream``, and only those called with a tool
    call id. A sync tool runs in a worker thread, whose callbacks run there: the report is then
    handed to the event loop, where it lands before the tool's result.
    """

    ignore_agent = False  # a tool's start is an "agent" event for LangChain

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
        if not isinstance(call_id, str) or not call_id or not own_graph_task(metadata) or "nostream" in (tags or ()):
            return
        name = str((serialized or {}).get("name") or kwargs.get("name") or "tool")
        args = inputs if isinstance(inputs, dict) else None
        self.call(self.turn.tool_started, call_id, name, args)
