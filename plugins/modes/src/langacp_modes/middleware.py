"""The mode middleware: the current mode's system prompt, the chosen model, thought level and thinking, per model call.

The core builds a session's agent (and its system prompt) once, when the session opens; a
mode or model switched mid-session must change the *next* model call, so it is done here,
read afresh at every call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import SystemMessage

from langacp.api import SessionContext
from langacp_modes.models import model_name
from langacp_modes.session import (
    DEFAULT_THOUGHT,
    chosen_model,
    current_mode,
    model_for,
    state_of,
    thinking,
    thinking_switch,
    thought_level,
)

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse

__all__ = ["ModesMiddleware", "with_addition"]


def with_addition(system: SystemMessage | None, addition: str) -> SystemMessage:
    """``system`` with ``addition`` appended as a paragraph."""
    if system is None:
        return SystemMessage(content=addition)
    if isinstance(system.content, str):
        return SystemMessage(content=f"{system.content}\n\n{addition}" if system.content else addition)
    return SystemMessage(content=[*system.content, {"type": "text", "text": f"\n\n{addition}"}])


class ModesMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """Applies the session's mode prompt, model choice and thought level to each model call."""

    langacp_role = "mode"
    """The library's ``ACPModeMiddleware`` runs middleware with this role (``docs/library.md``)."""

    def __init__(self, session: SessionContext) -> None:
        super().__init__()
        self.session = session

    @property
    def name(self) -> str:
        return "langacp_modes"

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        state = state_of(self.session)
        if state.agent_model_name is None:
            state.agent_model_name = model_name(request.model)
        overrides: dict[str, Any] = {}
        mode = current_mode(self.session)
        if mode.system_prompt:
            overrides["system_message"] = with_addition(request.system_message, mode.system_prompt)
        choice = chosen_model(self.session)
        if choice is not None:  # the agent's own model (no choice): no model, thought level or thinking to apply
            model = model_for(self.session)
            if model is not None:
                overrides["model"] = model
            level = thought_level(self.session)
            settings: dict[str, Any] = {}
            if level != DEFAULT_THOUGHT:
                settings[choice.thought_setting] = level
            switch = thinking_switch(self.session)
            if switch is not None:
                settings.update(switch[0] if thinking(self.session) else switch[1])
            if settings:
                overrides["model_settings"] = {**request.model_settings, **settings}
        return await handler(request.override(**overrides) if overrides else request)
