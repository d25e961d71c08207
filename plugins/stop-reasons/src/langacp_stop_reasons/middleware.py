"""The per-prompt model-call limit, and forgetting a refused prompt, as LangChain middleware.

The count lives in the session (``session.scratch(TurnState)``), reset when a prompt
starts: permission round trips and human-in-the-loop resumes within one prompt do not reset
it (LangChain's own ``run_limit`` counters restart on every resume).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse, ModelCallResult
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.types import Command

from langacp.api import SessionContext
from langacp_stop_reasons.reasons import TurnState, is_refusal

__all__ = ["TurnLimits"]


class TurnLimits(AgentMiddleware):  # type: ignore[type-arg]
    """Ends the turn cleanly once a prompt has made ``max_model_calls`` model calls (0: no limit).

    With ``forget_refusals``, a refused prompt and everything after it leaves the thread, as
    ACP's ``refusal`` stop reason promises the client.
    """

    def __init__(self, session: SessionContext, max_model_calls: int, *, forget_refusals: bool = True) -> None:
        super().__init__()
        self.session = session
        self.max_model_calls = max_model_calls
        self.forget_refusals = forget_refusals

    @property
    def name(self) -> str:
        return "langacp_stop_reasons"

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        # Both checks live around the model call rather than in before/after-model hooks:
        # those would add two graph steps to every model call (measured: ~20% of a tool loop).
        turn = self.session.scratch(TurnState)
        if self.max_model_calls and turn.model_calls >= self.max_model_calls:
            turn.limit_hit = True
            text = (
                f"Stopped: this prompt reached the limit of {self.max_model_calls} model calls "
                "([stop_reasons] max_model_calls). Send another prompt to continue."
            )
            if not turn.limit_told:  # once a prompt (a model call after the cap comes back here)
                turn.limit_told = True
                await self.session.notify("warning", "Model-call limit reached", text)
            return AIMessage(content=text)  # no tool calls: the agent loop ends here; the model reads why next turn
        turn.model_calls += 1
        response = await handler(request)
        if not self.forget_refusals:
            return response
        result = response.result if isinstance(response, ModelResponse) else []
        if not (result and is_refusal(result[-1])):
            return response
        turn.refused = True
        return ExtendedModelResponse(response, Command(update={"messages": _forget_turn(request.messages, result)}))


def _forget_turn(history: list[Any], response: list[Any]) -> list[RemoveMessage]:
    """Remove the last user message, what followed it, and the response: a refused prompt leaves the thread."""
    start = max((i for i, m in enumerate(history) if isinstance(m, HumanMessage)), default=len(history))
    return [RemoveMessage(id=m.id) for m in [*history[start:], *response] if m.id]
