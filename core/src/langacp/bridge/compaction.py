"""A history compaction (``SummarizationMiddleware``) reported to a client that advertised ``session.compaction``.

``compaction_update`` ``in_progress`` when the summary starts being made (its runs carry
LangChain's ``lc_source: summarization`` metadata), ``completed`` with the summary when the
summary message arrives, ``failed`` when making it raised. A client without the capability
sees the summary as the agent's thought, as before (:func:`langacp.bridge.content.notification_updates`).
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
    """Tells a turn when a summary starts being made, and when making it failed.

    Added to a run's callbacks only for a graph that summarizes (:func:`summarizes`): it sees
    every chain's start.
    """

    ignore_chain = False

    def __init__(self, turn: TurnReporter) -> None:
        super().__init__(turn)
        self.runs: set[Any] = set()

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: Any, metadata: dict[str, Any] | None = None, **_: Any
    ) -> None:
        if metadata and metadata.get("lc_source") == SUMMARY_SOURCE:
            self.runs.add(run_id)
            self.call(self.turn.compaction_started)

    def on_chain_end(self, outputs: Any, *, run_id: Any, **_: Any) -> None:
        self.runs.discard(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: Any, **_: Any) -> None:
        if run_id in self.runs:
            self.runs.discard(run_id)
            self.call(self.turn.compaction_failed, f"{type(error).__name__}: {error}")
