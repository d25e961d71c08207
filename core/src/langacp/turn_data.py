"""A turn's plain data: the tool calls the model made, how the turn ended, the exceptions that end it early.

Under :mod:`langacp.types` (which re-exports every name); no langacp import, and LangChain only
inside :func:`model_call_messages` (called once a model has answered).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["PromptCancelled", "ToolCallInfo", "TurnOutcome", "TurnPaused", "model_call_messages"]


class PromptCancelled(Exception):
    """Raise from a hook or tool to end the turn with stop reason ``cancelled``.

    For example when the client answers a permission request with ``cancelled``.
    (``asyncio.CancelledError`` raised inside a graph node is turned into an error by
    LangGraph; this exception is not.)
    """


class TurnPaused(Exception):
    """Raise from a ``langacp_resume_interrupt`` awaitable: the graph stays paused, the turn ends.

    The interrupts stay pending in the thread (nothing is repaired or lost); the turn ends with
    ``stop_reason`` (``end_turn`` or ``cancelled``); the session's next prompt is offered to
    ``langacp_resume_interrupt`` first (as ``prompt``), so it can answer them.
    """

    def __init__(self, reason: str = "", stop_reason: Literal["end_turn", "cancelled"] = "end_turn") -> None:
        super().__init__(reason or "the graph waits for an answer")
        self.stop_reason = stop_reason


@dataclass(frozen=True)
class ToolCallInfo:
    """One tool call the model made: what mappers and permission policies look at."""

    tool_call_id: str
    name: str
    args: dict[str, Any]

    @classmethod
    def from_tool_call(cls, tool_call: Mapping[str, Any]) -> ToolCallInfo:
        """From a LangChain ``ToolCall`` dict (``{"id", "name", "args"}``)."""
        return cls(tool_call.get("id") or "", tool_call["name"], dict(tool_call.get("args") or {}))


def model_call_messages(response: Any) -> list[Any]:
    """The messages a model call answered, as an ``awrap_model_call`` middleware gets it from ``handler``.

    A bare ``AIMessage``, a ``ModelResponse`` (its ``result``) or an ``ExtendedModelResponse``
    (its ``model_response.result``); anything else answered nothing.
    """
    from langchain_core.messages import AIMessage  # loaded already: a model was called

    if isinstance(response, AIMessage):
        return [response]
    inner = getattr(response, "model_response", response)
    result = getattr(inner, "result", None)
    return list(result) if isinstance(result, list) else []


@dataclass
class TurnOutcome:
    """How a prompt turn ended; the stop-reason hook reads it."""

    cancelled: bool = False
    last_message: Any = None
    """The last ``AIMessage`` the model produced in this turn, if any."""
    finish_reason: str | None = None
    """The provider's ``finish_reason`` / ``stop_reason`` from the last model response."""
    model_calls: int = 0
    tool_calls: int = 0
    error: BaseException | None = None
    interrupted: bool = False
    """The graph stopped on an interrupt nobody resumed."""
    paused: bool = False
    """The graph waits for an answer (:class:`TurnPaused`): its interrupts stay pending for the next prompt."""
    usage: dict[str, int] = field(default_factory=dict)
    """Token totals of the turn's model calls, summed from their ``usage_metadata``:
    ``input_tokens``, ``output_tokens``, ``total_tokens``, and when reported ``cache_read``,
    ``cache_creation``, ``reasoning``."""
