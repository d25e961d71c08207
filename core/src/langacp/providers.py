"""The model providers langacp knows: each one's package, ``langacp[...]`` extra and API key variables.

Read by the default agent (which model to load), ``langacp serve`` / ``check`` (a missing package
or key), ``langacp login`` and the editor setup; nothing here imports a provider.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MODEL_ENV", "PROVIDERS", "Provider", "provider_of"]

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
