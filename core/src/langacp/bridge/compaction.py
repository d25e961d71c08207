"""A history compaction (``SummarizationMiddleware``) reported to a client that advertised ``session.compaction``.

``compaction_update`` ``in_progress`` when the summary starts being made (its runs carry
LangChain's ``lc_source: summarization`` metadata), a ``compaction_summary_chunk`` for each
piece of text the summary model streams, ``completed`` with the whole summary when the summary
message arrives, ``failed`` when making it raised. The compaction's id is the summary message's
id in the history (given to the message before the graph stores it), so ``session/load`` names
the compaction as the live turn did. A client without the capability sees the summary as the
agent's thought, as before (:func:`langacp.bridge.content.notification_updates`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langacp.bridge.turn_callbacks import TurnCallbacks

if TYPE_CHECKING:
    from langacp.bridge.turn import TurnReporter

__all__ = ["SUMMARY_SOURCE", "CompactionStarts", "summarizes"]

SUMMARY_SOURCE = "summarization"
"""``lc_source`` of ``SummarizationMiddleware``'s summary message and of the runs that make it."""


def summarizes(graph: Any) -> bool:
    """``graph`` has a ``SummarizationMiddleware`` node (``create_agent`` names it after the middleware)."""
    nodes = getattr(graph, "nodes", None) or {}
    return any(str(name).startswith("SummarizationMiddleware.") for name in nodes)


class CompactionStarts(TurnCallbacks):
    """Tells a turn when a summary starts being made, what its model streams, and when making it failed.

    Added to a run's callbacks only for a graph that summarizes (:func:`summarizes`): it sees
    every chain's and model's start. When a chain returns the summary message without an id,
    the message is given the compaction's id before LangGraph stores it.
    """

    ignore_chain = False
    ignore_llm = False
    ignore_chat_model = False

    def __init__(self, turn: TurnReporter) -> None:
        super().__init__(turn)
        self.runs: set[Any] = set()

    def _started(self, run_id: Any, metadata: dict[str, Any] | None) -> None:
        if metadata and metadata.get("lc_source") == SUMMARY_SOURCE:
            self.runs.add(run_id)
            self.call(self.turn.compaction_started)

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: Any, metadata: dict[str, Any] | None = None, **_: Any
    ) -> None:
        self._started(run_id, metadata)

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: Any, metadata: dict[str, Any] | None = None, **_: Any
    ) -> None:
        self._started(run_id, metadata)

    def on_llm_start(
        self, serialized: Any, prompts: Any, *, run_id: Any, metadata: dict[str, Any] | None = None, **_: Any
    ) -> None:
        self._started(run_id, metadata)

    def on_llm_new_token(self, token: Any, *, run_id: Any, **_: Any) -> None:
        if token and isinstance(token, str) and run_id in self.runs:
            self.call(self.turn.compaction_chunk, token)

    def on_chain_end(self, outputs: Any, *, run_id: Any, **_: Any) -> None:
        self.runs.discard(run_id)
        for message in _summaries(outputs):
            if message.id is None:  # here, before the graph stores it: add_messages would make a random one
                message.id = self.turn.compaction_id()

    def on_llm_end(self, response: Any, *, run_id: Any, **_: Any) -> None:
        self.runs.discard(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: Any, **_: Any) -> None:
        if run_id in self.runs:
            self.runs.discard(run_id)
            self.call(self.turn.compaction_failed, f"{type(error).__name__}: {error}")

    on_llm_error = on_chain_error


def _summaries(outputs: Any) -> list[Any]:
    """The summary messages among a chain's ``outputs`` (a state update, or a ``Command``'s)."""
    update = outputs if isinstance(outputs, dict) else getattr(outputs, "update", None)  # a Command's
    messages = update.get("messages") if isinstance(update, dict) else None
    if not isinstance(messages, list):
        return []
    from langchain_core.messages import HumanMessage, get_notification_metadata

    found = []
    for message in messages:
        if isinstance(message, HumanMessage):
            metadata = get_notification_metadata(message)
            if metadata is not None and metadata.get("source") == SUMMARY_SOURCE:
                found.append(message)
    return found
