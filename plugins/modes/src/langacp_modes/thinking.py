"""Thinking on/off for a chosen model: the model settings each value passes to the model call.

A ``[models]`` choice with ``thinking = true`` uses the preset of its chat model's class (what
the LangChain integration takes as a call keyword); ``thinking = { on = {...}, off = {...} }``
(the user's file only) names the settings itself. A model with neither gets no option.
"""

from __future__ import annotations

from typing import Any

from langacp_modes.config import ModelChoice

__all__ = ["PRESETS", "thinking_settings"]

PRESETS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # langchain-anthropic: extended thinking (the model's max_tokens must exceed the budget)
    "ChatAnthropic": ({"thinking": {"type": "enabled", "budget_tokens": 4096}}, {"thinking": {"type": "disabled"}}),
    # langchain-ollama: a thinking model's reasoning switched on or off
    "ChatOllama": ({"reasoning": True}, {"reasoning": False}),
}
"""Thinking on / off settings by chat model class name."""


def thinking_settings(choice: ModelChoice, model: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The (on, off) model settings of ``choice`` built as ``model``; ``None``: it offers no thinking switch."""
    if not choice.thinking:
        return None
    if choice.thinking_settings is not None:
        return choice.thinking_settings
    return PRESETS.get(type(model).__name__)
