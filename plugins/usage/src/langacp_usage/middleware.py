"""Reports usage after each model call, from inside the agent (where the model's profile is known)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage

from langacp_usage.meter import Meter

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse

__all__ = ["UsageReporter"]


class UsageReporter(AgentMiddleware):  # type: ignore[type-arg]
    """Sends a ``usage_update`` once each model call returns."""

    def __init__(self, meter: Meter) -> None:
        super().__init__()
        self.meter = meter

    @property
    def name(self) -> str:
        return "langacp_usage"

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        response = await handler(request)
        messages = response.result if hasattr(response, "result") else [response]
        message = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        session = self.meter.session
        self.meter.calls_this_turn += 1
        update = self.meter.update(message, request.model) if message is not None else None
        if update is not None and session.send_update is not None:
            await session.send_update(update)
        return response
