"""Choosing the default agent's model: ``--model`` / ``LANGACP_MODEL``, or the offline demo model.

:func:`check_model` is cheap (no provider import) so ``langacp serve`` can refuse to start with
a clear message when a provider package or API key is missing, before an editor sees a broken
agent.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from langacp.providers import MODEL_ENV, PROVIDERS, Provider, provider_of

__all__ = [
    "MODEL_ENV",
    "PROVIDERS",
    "STREAM_USAGE_ENV",
    "MissingKeyError",
    "ModelError",
    "Provider",
    "check_model",
    "load_model",
    "provider_of",
    "stream_usage",
]

STREAM_USAGE_ENV = "LANGACP_STREAM_USAGE"
"""``0`` (or ``false``, ``no``, ``off``): do not ask the provider for token usage while streaming."""


class ModelError(Exception):
    """The configured model cannot be used; the message says what to install or set."""


class MissingKeyError(ModelError):
    """The model's provider needs an API key that is not set (the editor can ask the user to log in)."""


def check_model(model: str) -> None:
    """Raise :class:`ModelError` if ``model``'s provider package or API key is missing (without importing it)."""
    provider = provider_of(model)
    spec = PROVIDERS.get(provider or "")
    if spec is None:
        return  # init_chat_model decides
    if importlib.util.find_spec(spec.module) is None:
        from langacp.hints import install_command

        extra = f" (or: {install_command('langacp', spec.extra)})" if spec.extra else ""
        raise ModelError(
            f"the model {model!r} needs the {spec.distribution} package: pip install {spec.distribution}{extra}"
        )
    if spec.keys and not any(os.environ.get(key) for key in spec.keys):
        raise MissingKeyError(
            f"the model {model!r} needs an API key: set {' or '.join(spec.keys)}, "
            f"or log in: langacp login --model {model}"
        )


def load_model(model: str | None) -> Any:
    """A chat model for ``model`` (an ``init_chat_model`` string), or the offline demo model when empty."""
    if not model:
        from langacp.default_agent.demo_model import DemoChatModel

        return DemoChatModel()
    check_model(model)
    from langchain.chat_models import init_chat_model

    try:
        return stream_usage(init_chat_model(model))
    except ImportError as exc:
        raise ModelError(f"the model {model!r} needs a package that is not installed: {exc}") from exc
    except Exception as exc:
        raise ModelError(f"cannot use the model {model!r}: {type(exc).__name__}: {exc}") from exc


def stream_usage(chat_model: Any) -> Any:
    """``chat_model``, asking for token usage in its stream when its class can and left it to a default.

    langchain-openai asks for it only when no base URL is set, so behind ``OPENAI_BASE_URL``
    (LiteLLM, OpenRouter, vLLM, Ollama) no usage arrives unless asked; a gateway that refuses
    ``stream_options`` is served with ``LANGACP_STREAM_USAGE=0``.
    """
    if os.environ.get(STREAM_USAGE_ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return chat_model
    if "stream_usage" in getattr(type(chat_model), "model_fields", {}) and chat_model.stream_usage is None:
        chat_model.stream_usage = True
    return chat_model
