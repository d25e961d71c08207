"""Running the stream: one prompt turn of a graph, from LangGraph's ``astream`` to a :class:`TurnReporter`.

Stream modes used: ``messages`` (tokens, reasoning, tool-call chunks, tool results) and
``updates`` (complete tool calls with their arguments, interrupts). A tool's start comes from
the core's tool guard (a per-session factory's graph) or from :class:`ToolStarts`, a callback
handler that listens to nothing else. Updates go through the session's
:class:`~langacp.bridge.outbox.UpdateSink` so the graph never waits on the pipe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import AIMessage, RemoveMessage, ToolMessage
from langchain_core.runnables.config import RunnableConfig, merge_configs

from langacp.bridge.tool_starts import ToolStarts
from langacp.bridge.turn import TurnReporter
from langacp.types import SessionContext, TurnOutcome

if TYPE_CHECKING:
    from langacp.bridge.outbox import UpdateSink
    from langacp.plugins import Plugins

__all__ = ["NOT_ANSWERED_TEXT", "NO_RESUME_TEXT", "STREAM_MODES", "TurnRunner"]

STREAM_MODES = ["messages", "updates"]
NOT_ANSWERED_TEXT = "Not run: the agent paused for human input and nothing answered it."
NO_RESUME_TEXT = (
    "\n\nThe agent paused for human input (a LangGraph interrupt), and no installed "
    "langacp plugin answers interrupts (hook langacp_resume_interrupt), so the turn ends here."
)


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
