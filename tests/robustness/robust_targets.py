"""Agents for the robustness tests (importable: the tests put this directory on PYTHONPATH)."""

from __future__ import annotations

import dataclasses
from typing import Any

from langacp import SessionSetup
from langacp.testing.agent import TOOLS, respond
from langacp.testing.model import Reply, ScriptedChatModel, ScriptedToolCall


def _same_id(messages: Any) -> Reply:
    reply = respond(messages)
    calls = [ScriptedToolCall(c.name, c.args, "call_0") for c in reply.tool_calls]
    return dataclasses.replace(reply, tool_calls=calls) if calls else reply


def same_id_agent(setup: SessionSetup) -> Any:
    """A model that names every tool call ``call_0``, as providers numbering per response do."""
    return setup.create_agent(ScriptedChatModel(responder=_same_id), tools=TOOLS)
