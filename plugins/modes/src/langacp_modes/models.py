"""Building the chat model of a :class:`~langacp_modes.config.ModelChoice`."""

from __future__ import annotations

import importlib
from typing import Any

from langacp_modes.config import ModelChoice

__all__ = ["build_model", "model_name"]


def build_model(choice: ModelChoice) -> Any:
    """A chat model for ``choice``: ``init_chat_model(choice.model)``, or the ``module:attr`` factory's."""
    if choice.factory is not None:
        module_name, _, attr = choice.factory.partition(":")
        if not module_name or not attr:
            raise ValueError(f"factory {choice.factory!r} is not module:attr")
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj() if callable(obj) and not _is_chat_model(obj) else obj
    from langchain.chat_models import init_chat_model

    assert choice.model is not None
    return init_chat_model(choice.model)


def _is_chat_model(obj: Any) -> bool:
    from langchain_core.language_models import BaseChatModel

    return isinstance(obj, BaseChatModel)


def model_name(model: Any) -> str | None:
    """A readable name of a chat model (``gpt-4.1``, ``claude-…``), if it says."""
    for attribute in ("model_name", "model", "model_id"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__ if model is not None else None
