"""What a model response says about why it ended (no LangChain import: loaded at start-up)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["LENGTH_REASONS", "REFUSAL_REASONS", "TurnState", "is_refusal"]


@dataclass
class TurnState:
    """This plugin's per-prompt state (``session.scratch(TurnState)``), reset when a prompt starts."""

    model_calls: int = 0
    limit_hit: bool = False
    limit_told: bool = False
    """The user was sent a notice about the limit (a client that shows notices)."""
    refused: bool = False


LENGTH_REASONS = {"length", "max_tokens", "max_output_tokens", "model_length", "model_context_window_exceeded"}
"""Provider finish / stop reasons meaning the output hit its token limit."""

REFUSAL_REASONS = {"refusal", "content_filter", "safety", "recitation", "prohibited_content", "blocklist"}
"""Provider finish / stop reasons meaning the model refused (or was stopped by a safety filter)."""


def is_refusal(message: Any, finish_reason: str | None = None) -> bool:
    """Whether a model response is a refusal: its finish reason, a refusal block or field."""
    if (finish_reason or "").lower() in REFUSAL_REASONS:
        return True
    if message is None or getattr(message, "type", None) != "ai":
        return False
    metadata = getattr(message, "response_metadata", None) or {}
    for key in ("finish_reason", "stop_reason"):
        if str(metadata.get(key) or "").lower() in REFUSAL_REASONS:
            return True
    if (getattr(message, "additional_kwargs", None) or {}).get("refusal"):
        return True  # OpenAI chat completions
    content = getattr(message, "content", None)
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "refusal" for b in content)
