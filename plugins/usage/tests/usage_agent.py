"""Test targets: the scripted agent with a model profile (a 4000-token context window)."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent

from langacp import SessionSetup
from langacp.testing.agent import TOOLS, respond
from langacp.testing.model import ScriptedChatModel


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(responder=respond, profile={"max_input_tokens": 4000})


def agent(setup: SessionSetup) -> Any:
    return setup.create_agent(_model(), tools=TOOLS)


def no_profile_agent(setup: SessionSetup) -> Any:
    return setup.create_agent(ScriptedChatModel(responder=respond), tools=TOOLS)


def graph_agent(setup: SessionSetup) -> Any:
    """Ignores ``setup.middleware``, like a precompiled graph: no per-call reports possible."""
    return create_agent(_model(), tools=TOOLS, checkpointer=setup.checkpointer)
