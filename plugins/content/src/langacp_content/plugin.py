"""The langacp-content hooks: prompt blocks in, output blocks out, prompt capabilities to match.

Cheap to import (it is loaded before ``initialize`` is answered): ACP models are imported
inside the hooks. ``LANGACP_CONTENT_DISABLE=image,audio`` turns kinds of prompt content off
(for a text-only model): they are then not advertised, and a prompt carrying one gets -32602.
"""

from __future__ import annotations

import os
from typing import Any

from langacp.api import SessionContext, hookimpl

__all__ = ["DISABLE_ENV", "disabled"]

DISABLE_ENV = "LANGACP_CONTENT_DISABLE"
_KINDS = ("image", "audio")


def disabled() -> set[str]:
    """Prompt content kinds turned off (``image``, ``audio``)."""
    names = {part.strip().lower() for part in os.environ.get(DISABLE_ENV, "").split(",")}
    return names & set(_KINDS)


@hookimpl
def langacp_agent_capabilities(capabilities: Any) -> None:
    from acp.schema import PromptCapabilities

    off = disabled()
    if capabilities.prompt_capabilities is None:
        capabilities.prompt_capabilities = PromptCapabilities()
    prompt = capabilities.prompt_capabilities
    prompt.image = "image" not in off
    prompt.audio = "audio" not in off
    prompt.embedded_context = True


@hookimpl
def langacp_prompt_block(block: Any, session: SessionContext) -> list[dict[str, Any]] | None:
    """``None`` for a kind turned off: the core then refuses the prompt with -32602."""
    from langacp_content.convert import for_model, to_langchain

    if getattr(block, "type", None) in disabled():
        return None
    return [for_model(to_langchain(block))]


@hookimpl
def langacp_output_block(block: dict[str, Any], session: SessionContext) -> list[Any]:
    from langacp_content.output import output_updates

    return output_updates(block, session)
