"""Choosing the default agent's model: ``--model`` / ``LANGACP_MODEL``, or the offline demo model.

:func:`check_model` is cheap (no provider import) so ``langacp serve`` can refuse to start with
a clear message when a provider package or API key is missing, before an editor sees a broken
agent.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, NamedTuple

__all__ = ["MODEL_ENV", "PROVIDERS", "MissingKeyError", "ModelError", "check_model", "load_model", "provider_of"]

MODEL_ENV = "LANGACP_MODEL"


class Provider(NamedTuple):
    module: str
    """The import name of the integration package."""
    distribution: str
    """What to ``pip install``."""
    extra: str | None
    """The ``langacp[...]`` extra that installs it."""
    keys: tuple[str, ...]
    """Environment variables holding the API key (any one will do); empty when none is needed."""


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("langchain_openai", "langchain-openai", "openai", ("OPENAI_API_KEY",)),
    "azure_openai": Provider("langchain_openai", "langchain-openai", "openai", ("AZURE_OPENAI_API_KEY",)),
    "anthropic": Provider("langchain_anthropic", "langchain-anthropic", "anthropic", ("ANTHROPIC_API_KEY",)),
    "google_genai": Provider(
        "langchain_google_genai", "langchain-google-genai", "google-genai", ("GOOGLE_API_KEY", "GEMINI_API_KEY")
    ),
    "mistralai": Provider("langchain_mistralai", "langchain-mistralai", "mistralai", ("MISTRAL_API_KEY",)),
    "groq": Provider("langchain_groq", "langchain-groq", "groq", ("GROQ_API_KEY",)),
    "deepseek": Provider("langchain_deepseek", "langchain-deepseek", "deepseek", ("DEEPSEEK_API_KEY",)),
    "xai": Provider("langchain_xai", "langchain-xai", "xai", ("XAI_API_KEY",)),
    "fireworks": Provider("langchain_fireworks", "langchain-fireworks", "fireworks", ("FIREWORKS_API_KEY",)),
    "ollama": Provider("langchain_ollama", "langchain-ollama", "ollama", ()),
    "bedrock": Provider("langchain_aws", "langchain-aws", "aws", ()),
    "bedrock_converse": Provider("langchain_aws", "langchain-aws", "aws", ()),
}
"""Providers langacp knows the package, extra and key of; ``init_chat_model`` accepts more."""

_INFERRED = (
    (("gpt-", "o1", "o3", "o4", "chatgpt"), "openai"),
    (("claude",), "anthropic"),
    (("mistral", "mixtral"), "mistralai"),
    (("deepseek",), "deepseek"),
    (("grok",), "xai"),
)


class ModelError(Exception):
    """The configured model cannot be used; the message says what to install or set."""


class MissingKeyError(ModelError):
    """The model's provider needs an API key that is not set (the editor can ask the user to log in)."""


def provider_of(model: str) -> str | None:
    """The provider of an ``init_chat_model`` string (``openai:gpt-4.1`` → ``openai``), if known."""
    prefix, sep, _ = model.partition(":")
    if sep and prefix:
        return prefix.replace("-", "_").lower()
    lower = model.lower()
    for prefixes, provider in _INFERRED:
        if lower.startswith(prefixes):
            return provider
    return None


def check_model(model: str) -> None:
    """Raise :class:`ModelError` if ``model``'s provider package or API key is missing (without importing it)."""
    provider = provider_of(model)
    spec = PROVIDERS.get(provider or "")
    if spec is None:
        return  # init_chat_model decides
    if importlib.util.find_spec(spec.module) is None:
        extra = f" (or: pip install 'langacp[{spec.extra}]')" if spec.extra else ""
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
        return init_chat_model(model)
    except ImportError as exc:
        raise ModelError(f"the model {model!r} needs a package that is not installed: {exc}") from exc
    except Exception as exc:
        raise ModelError(f"cannot use the model {model!r}: {type(exc).__name__}: {exc}") from exc
