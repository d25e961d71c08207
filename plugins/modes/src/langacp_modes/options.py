"""Session config options: mode (category ``mode``), model (``model``), thought level and thinking on/off
(``thought_level``), auto-accept edits (an on/off option).

The model option is offered when the user configured model choices; the thought-level option
only while the chosen model declares ``thought_levels`` (langacp cannot ask a model which
levels it supports, so the configuration says), thinking on/off while it has a thinking switch
(``[models]`` ``thinking``: a boolean option, or an ``on``/``off`` select for a client that takes no
booleans); auto-accept edits only to a client that
advertised ``session.configOptions.boolean`` (the others get exactly the options above).
"""

from __future__ import annotations

from typing import Any

from langacp.api import SessionContext
from langacp_modes.session import (
    DEFAULT_MODEL,
    DEFAULT_THOUGHT,
    auto_accept_edits,
    booleans_offered,
    chosen_model,
    current_mode,
    set_auto_accept_edits,
    set_model,
    set_thinking,
    set_thought_level,
    state_of,
    switch_mode,
    thinking,
    thinking_switch,
    thought_level,
)

__all__ = [
    "AUTO_ACCEPT_OPTION",
    "MODEL_OPTION",
    "MODE_OPTION",
    "THINKING_OPTION",
    "THOUGHT_OPTION",
    "config_options",
    "mode_state",
    "set_option",
]

AUTO_ACCEPT_OPTION = "auto_accept_edits"
MODE_OPTION = "mode"
MODEL_OPTION = "model"
THOUGHT_OPTION = "thought_level"
THINKING_OPTION = "thinking"
_MAX_VIEWS = 256


def config_options(session: SessionContext) -> list[Any]:
    """This session's options and their current values.

    Built once per configuration and set of values, then shared by the sessions that have
    them (the client only reads them): a new list each call, of the same option objects.
    """
    state = state_of(session)
    choice = chosen_model(session) if state.config.models else None
    key = (
        "options",
        current_mode(session).id,
        choice.id if choice is not None else None,
        thought_level(session) if choice is not None and choice.thought_levels else None,
        state.agent_model_name if state.config.models else None,
        auto_accept_edits(session) if booleans_offered(session) else None,
        (booleans_offered(session), thinking(session)) if choice is not None and thinking_switch(session) else None,
    )
    views = state.config.views
    found = views.get(key)
    if found is None:
        if len(views) > _MAX_VIEWS:  # a few modes and models: only a model named anew each session gets here
            views.clear()
        found = views[key] = tuple(_build_options(session))
    return list(found)


def _build_options(session: SessionContext) -> list[Any]:
    from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

    state = state_of(session)
    options: list[Any] = [
        SessionConfigOptionSelect(
            type="select",
            id=MODE_OPTION,
            name="Mode",
            description="What the agent may do without asking",
            category="mode",
            current_value=current_mode(session).id,
            options=[
                SessionConfigSelectOption(value=m.id, name=m.name, description=m.description)
                for m in state.config.modes.values()
            ],
        )
    ]
    if state.config.models:
        choice = chosen_model(session)
        agent_model = state.agent_model_name
        options.append(
            SessionConfigOptionSelect(
                type="select",
                id=MODEL_OPTION,
                name="Model",
                description="The model used from the next turn on",
                category="model",
                current_value=choice.id if choice is not None else DEFAULT_MODEL,
                options=[
                    SessionConfigSelectOption(
                        value=DEFAULT_MODEL,
                        name=f"Default ({agent_model})" if agent_model else "Default",
                        description="The model the agent was built with",
                    ),
                    *(
                        SessionConfigSelectOption(value=c.id, name=c.name, description=c.description)
                        for c in state.config.models.values()
                    ),
                ],
            )
        )
        if choice is not None and choice.thought_levels:
            options.append(
                SessionConfigOptionSelect(
                    type="select",
                    id=THOUGHT_OPTION,
                    name="Thought level",
                    description=f"How hard {choice.name} thinks before answering",
                    category="thought_level",
                    current_value=thought_level(session),
                    options=[
                        SessionConfigSelectOption(value=DEFAULT_THOUGHT, name="Default"),
                        *(SessionConfigSelectOption(value=level, name=level) for level in choice.thought_levels),
                    ],
                )
            )
        if choice is not None and thinking_switch(session) is not None:
            options.append(_thinking_option(session, choice.name))
    if booleans_offered(session):
        from acp.schema import SessionConfigOptionBoolean

        options.append(
            SessionConfigOptionBoolean(
                type="boolean",
                id=AUTO_ACCEPT_OPTION,
                name="Auto-accept edits",
                description="Edits run without asking in a mode that would ask; a deny rule still denies",
                current_value=auto_accept_edits(session),
            )
        )
    return options


def _thinking_option(session: SessionContext, model: str) -> Any:
    """Thinking on/off: a boolean option for a client that takes them, else a select of ``on`` / ``off``."""
    from acp.schema import SessionConfigOptionBoolean, SessionConfigOptionSelect, SessionConfigSelectOption

    fields: dict[str, Any] = dict(
        id=THINKING_OPTION, name="Thinking", description=f"Whether {model} thinks before answering"
    )
    if booleans_offered(session):
        return SessionConfigOptionBoolean(
            type="boolean", category="thought_level", current_value=thinking(session), **fields
        )
    return SessionConfigOptionSelect(
        type="select",
        category="thought_level",
        current_value="on" if thinking(session) else "off",
        options=[SessionConfigSelectOption(value="on", name="On"), SessionConfigSelectOption(value="off", name="Off")],
        **fields,
    )


def mode_state(session: SessionContext) -> Any:
    """The session's ``SessionModeState``: built once per configuration and current mode, then shared."""
    config = state_of(session).config
    current = current_mode(session).id
    key = ("modes", current)
    found = config.views.get(key)
    if found is None:
        from acp.schema import SessionMode, SessionModeState

        available = config.views.get("available_modes")
        if available is None:
            available = config.views["available_modes"] = [
                SessionMode(id=m.id, name=m.name, description=m.description) for m in config.modes.values()
            ]
        found = config.views[key] = SessionModeState(current_mode_id=current, available_modes=available)
    return found


def set_option(session: SessionContext, config_id: str, value: str | bool) -> bool | None:
    """Set one of this plugin's options: ``True`` done, ``False`` invalid value, ``None`` not ours."""
    if config_id == MODE_OPTION:
        return isinstance(value, str) and switch_mode(session, value)
    if config_id == MODEL_OPTION and state_of(session).config.models:
        return isinstance(value, str) and set_model(session, value)
    if config_id == THOUGHT_OPTION:
        return isinstance(value, str) and set_thought_level(session, value)
    if config_id == THINKING_OPTION:
        return set_thinking(session, value)
    if config_id == AUTO_ACCEPT_OPTION and booleans_offered(session):
        if not isinstance(value, bool):
            return False
        set_auto_accept_edits(session, value)
        return True
    return None
