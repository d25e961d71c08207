"""The smallest useful langacp agent: a per-session factory.

    langacp serve examples/quickstart.py:agent

With ``LANGACP_MODEL`` set to an ``init_chat_model`` string (``openai:gpt-4.1-mini``,
``anthropic:claude-sonnet-4-5``, …, with the provider package installed and its API key
set) it talks to that model. Without it, it uses langacp's scripted offline test model, which
answers commands such as ``echo hello`` or ``tool word_count {"text": "a b c"}``.
"""

from __future__ import annotations

import os
from typing import Any

from langchain_core.tools import tool

from langacp import SessionSetup


@tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


def _model() -> Any:
    name = os.environ.get("LANGACP_MODEL")
    if name:
        from langchain.chat_models import init_chat_model

        return init_chat_model(name)
    from langacp.testing.agent import make_model

    return make_model()


def agent(setup: SessionSetup) -> Any:
    """Called once per ACP session; ``setup`` carries what installed plugins contribute."""
    return setup.create_agent(
        _model(),
        tools=[word_count],
        system_prompt=f"You are a helpful assistant. The user's project is in {setup.session.cwd}.",
    )
