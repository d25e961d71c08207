"""Per-session state: the modes offered, the current one, the chosen model and thought level.

The current mode lives in ``SessionContext.mode_id`` (the core saves it with the session); the
model choice and thought level in this plugin's session data (``session.data(ModesData)``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from langacp.api import SessionContext, layers_for
from langacp_modes.config import ModeConfig, ModelChoice, config_for
from langacp_modes.mode import Mode

__all__ = [
    "DEFAULT_MODEL",
    "ModesState",
    "auto_accept_edits",
    "booleans_offered",
    "current_mode",
    "set_auto_accept_edits",
    "set_model",
    "set_thinking",
    "set_thought_level",
    "state_of",
    "switch_mode",
    "thinking",
    "thinking_switch",
]

log = logging.getLogger("langacp_modes")

DEFAULT_MODEL = "default"
"""The value of the model option that means "the model the agent was built with"."""
DEFAULT_THOUGHT = "default"


@dataclass
class ModesState:
    """What this plugin keeps for a live session (``session.scratch(ModesState)``)."""

    config: ModeConfig
    agent_model_name: str | None = None
    """The name of the agent's own model, learnt at its first call (shown in the model option)."""
    models: dict[str, Any] = field(default_factory=dict)
    """Chat models built for the choices, by choice id."""
    enforced: bool = False
    """The session's agent is built by a factory that received this plugin's middleware and tools.
    A precompiled graph gets neither: no modes are offered rather than modes that are not enforced."""
    warned: bool = False
    """The user was told that a precompiled graph gets no modes."""


@dataclass
class ModesData:
    """What this plugin keeps with a session (``session.data(ModesData)``, stored under ``modes``)."""

    model: str | None = None
    """The chosen model's id (``None``: the agent's own model)."""
    thought_level: str | None = None
    thinking: bool = False
    """Thinking on for the chosen model (while it offers the switch: ``[models]`` ``thinking``)."""
    auto_accept_edits: bool = False
    """Edits run without asking in a mode that would ask (the boolean option, for clients that take one)."""


def state_of(session: SessionContext) -> ModesState:
    return session.scratch(ModesState, lambda: ModesState(config_for(session.cwd, layers_for(session))))


def _data(session: SessionContext) -> ModesData:
    return session.data(ModesData)


def current_mode(session: SessionContext) -> Mode:
    """The session's mode (the default one if its id is unknown)."""
    config = state_of(session).config
    return config.modes.get(session.mode_id or "") or config.modes[config.default_mode]


def open_session(session: SessionContext, *, created: bool) -> None:
    """Settle the mode of a new or restored session."""
    state = state_of(session)
    if not created:  # read the files again: they may have changed since the session was saved
        state.config = config_for(session.cwd, layers_for(session))
    config = state.config
    if session.mode_id not in config.modes:
        if session.mode_id is not None:
            log.warning(
                "langacp-modes: session %s was in mode %r, which no longer exists; using %r",
                session.session_id,
                session.mode_id,
                config.default_mode,
            )
        session.mode_id = config.default_mode
    data = _data(session)
    if data.model not in (None, DEFAULT_MODEL, *config.models):
        data.model, data.thought_level, data.thinking = None, None, False


def switch_mode(session: SessionContext, mode_id: str) -> bool:
    """Switch the session to ``mode_id`` (``False``: no such mode). The caller tells the client."""
    if mode_id not in state_of(session).config.modes:
        return False
    session.mode_id = mode_id  # the core saves it with the session
    return True


def chosen_model(session: SessionContext) -> ModelChoice | None:
    """The model choice in force (``None``: the agent's own model)."""
    choice_id = _data(session).model
    return state_of(session).config.models.get(choice_id) if choice_id is not None else None


def set_model(session: SessionContext, choice_id: str) -> bool:
    """Use ``choice_id`` from the next model call on (``default``: the agent's own model)."""
    state = state_of(session)
    data = _data(session)
    if choice_id == DEFAULT_MODEL:
        data.model, data.thought_level, data.thinking = None, None, False
        return True
    choice = state.config.models.get(choice_id)
    if choice is None:
        return False
    if choice_id not in state.models:
        from langacp_modes.models import build_model

        try:
            state.models[choice_id] = build_model(choice)
        except Exception as exc:  # noqa: BLE001 - a model that cannot be built is refused, with the reason logged
            log.error("langacp-modes: cannot use model %r: %s: %s", choice_id, type(exc).__name__, exc)
            return False
    if data.model != choice_id:
        data.thought_level, data.thinking = None, False
    data.model = choice_id
    return True


def model_for(session: SessionContext) -> Any | None:
    """The chat model to call instead of the agent's own (``None``: keep the agent's)."""
    choice = chosen_model(session)
    if choice is None:
        return None
    state = state_of(session)
    if choice.id not in state.models and not set_model(session, choice.id):
        return None
    return state.models[choice.id]


def booleans_offered(session: SessionContext) -> bool:
    """The client advertised ``session.configOptions.boolean``: on/off options may be offered to it."""
    caps = getattr(session.client_capabilities, "session", None)
    return getattr(getattr(caps, "config_options", None), "boolean", None) is not None


def auto_accept_edits(session: SessionContext) -> bool:
    """Edits run without asking where the mode would ask (only ever set by a client that takes on/off options)."""
    return _data(session).auto_accept_edits


def set_auto_accept_edits(session: SessionContext, on: bool) -> None:
    _data(session).auto_accept_edits = on


def thinking_switch(session: SessionContext) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The chosen model's (on, off) thinking settings; ``None``: no thinking switch is offered."""
    from langacp_modes.thinking import thinking_settings

    choice = chosen_model(session)
    if choice is None or not choice.thinking:
        return None
    model = model_for(session)
    return thinking_settings(choice, model) if model is not None else None


def thinking(session: SessionContext) -> bool:
    return _data(session).thinking


def set_thinking(session: SessionContext, value: str | bool) -> bool:
    """Switch thinking on or off (``True`` / ``False``, or ``on`` / ``off``); ``False``: not offered, or invalid."""
    if thinking_switch(session) is None:
        return False
    if isinstance(value, str) and value in ("on", "off"):
        value = value == "on"
    if not isinstance(value, bool):
        return False
    _data(session).thinking = value
    return True


def thought_level(session: SessionContext) -> str:
    return _data(session).thought_level or DEFAULT_THOUGHT


def set_thought_level(session: SessionContext, level: str) -> bool:
    choice = chosen_model(session)
    if choice is None or not choice.thought_levels:
        return False
    if level == DEFAULT_THOUGHT:
        _data(session).thought_level = None
        return True
    if level not in choice.thought_levels:
        return False
    _data(session).thought_level = level
    return True
