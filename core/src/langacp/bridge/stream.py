"""Running the stream: one prompt turn of a graph, from LangGraph's ``astream`` to a :class:`TurnReporter`.

Stream modes used: ``messages`` (tokens, reasoning, tool-call chunks, tool results) and
``updates`` (complete tool calls with their arguments, interrupts). A tool's start comes from
the core's tool guard (a per-session factory's graph) or from :class:`ToolStarts`, a callback
handler that listens to nothing else. Updates go through the session's
:class:`~langacp.bridge.outbox.UpdateSink` so the graph never waits on the pipe.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import AIMessage, RemoveMessage, ToolMessage
from langchain_core.runnables.config import RunnableConfig, merge_configs

from langacp.bridge.compaction import CompactionStarts, summarizes
from langacp.bridge.tool_starts import ToolStarts
from langacp.bridge.turn import TurnReporter
from langacp.compat.langgraph import INTERRUPT_KEY, overwritten
from langacp.protocol import client_compaction, client_plans, client_subagents
from langacp.types import SessionContext, TurnOutcome, TurnPaused

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
        self.paused_on: list[Any] = []
        """The interrupts offered to the plugins and not answered yet: what the graph waits on if the turn ends."""
        self.guarded = guarded
        """The graph runs the core's tool guard, which reports tools starting (see
        :meth:`tool_started`); otherwise a :class:`ToolStarts` handler in the run's callbacks does."""
        self.graph = graph
        self.subagents: Any = None
        """The :class:`~langacp.bridge.subagents.SubagentWatcher` of a client that shows child sessions."""

    async def run(
        self,
        graph_input: Any,
        config: dict[str, Any],
        outcome: TurnOutcome,
        *,
        pending: Sequence[Any] = (),
        prompt: Sequence[Any] | None = None,
    ) -> None:
        """Stream the graph until the turn ends; resume interrupts a plugin answers.

        ``pending``: interrupts the thread is paused on; ``prompt`` (the turn's prompt) is offered
        to ``langacp_resume_interrupt`` as their answer first, and ``graph_input`` runs only if no
        plugin takes it.
        """
        self.outcome = outcome
        handlers: list[Any] = [] if self.guarded else [ToolStarts(self)]
        if summarizes(self.graph) and client_compaction(self.session.client_capabilities):
            handlers.append(CompactionStarts(self))
        caps = self.session.client_capabilities
        if client_subagents(caps) or client_plans(caps):
            from langacp.bridge.subagents import SubagentWatcher

            self.subagents = SubagentWatcher(self, children=client_subagents(caps))
            handlers.append(self.subagents)
        if handlers:
            config = dict(merge_configs(cast("RunnableConfig", config), {"callbacks": handlers}))
        if pending:
            self.paused_on = list(pending)
            answered = await self._answered(self.plugins.resume_interrupt(self.session, pending, prompt))
            if outcome.paused:
                return
            if answered is not None:
                graph_input = answered
            else:
                self.paused_on = []  # nobody takes the prompt as the answer: it starts a new run
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
            self.paused_on = interrupts
            resume = await self._answered(self.plugins.resume_interrupt(self.session, interrupts))
            if outcome.paused:
                return
            if resume is None:
                # Nobody can answer: the calls waiting on it did not run, and the turn is over
                # as if cancelled (it did not end the way the model meant).
                outcome.interrupted = outcome.cancelled = True
                self.close_open_tools(NOT_ANSWERED_TEXT)
                self.say(NO_RESUME_TEXT)
                return
            graph_input = resume

    def close_open_tools(self, reason: str) -> None:
        """As :meth:`TurnReporter.close_open_tools`; a sub-agent still running (a child session) ends ``cancelled``."""
        if self.subagents is not None:
            self.subagents.close(reason)
        super().close_open_tools(reason)

    async def _answered(self, answer: Awaitable[Any]) -> Any:
        """The ``Command`` resuming the graph with a plugin's answer, or ``None`` if no plugin answers;
        when one pauses the graph instead (:class:`~langacp.types.TurnPaused`), ``None`` and the
        outcome says so."""
        from langgraph.types import Command

        try:
            value = await answer
        except TurnPaused as paused:
            self.outcome.paused = self.outcome.interrupted = True
            self.outcome.cancelled = paused.stop_reason == "cancelled"
            return None
        if value is None:
            return None
        self.paused_on = []
        return Command(resume=value)

    def _on_updates(self, data: dict[str, Any]) -> list[Any]:
        interrupts: list[Any] = []
        for node, update in data.items():
            if node == INTERRUPT_KEY:
                interrupts.extend(update if isinstance(update, (list, tuple)) else [update])
                continue
            messages = update.get("messages") if isinstance(update, dict) else None
            messages = overwritten(messages)
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
