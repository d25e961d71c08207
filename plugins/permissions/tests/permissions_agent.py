"""Agents for the permission tests: the scripted test agent plus tools that leave a trace.

``write_file`` appends to a file and ``run_command`` appends its command to a log file (it
runs nothing), so a test proves a tool never ran by the file it would have left. Extra
prompt commands:

* ``calls [{"name": …, "args": {…}}, …]``: parallel tool calls in one model response;
* ``retry N NAME {json}``: call the tool, and again after each result, N times in all.
"""

from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import BaseMessage

from langacp import SessionSetup
from langacp.testing.agent import TOOLS, TRACE_TOOLS, last_turn, respond
from langacp.testing.model import Reply, ScriptedChatModel, ScriptedToolCall

ALL_TOOLS = [*TOOLS, *TRACE_TOOLS]
GATED = {"write_file": True, "run_command": True}


def responder(messages: list[BaseMessage]) -> Reply:
    command, results = last_turn(messages)
    verb, _, rest = command.partition(" ")
    if verb == "calls":
        if results:
            return Reply(text="done: " + " | ".join(r.text for r in results))
        return Reply(tool_calls=[ScriptedToolCall(c["name"], c["args"]) for c in json.loads(rest)])
    if verb == "retry":
        times, _, call = rest.partition(" ")
        name, _, args = call.partition(" ")
        if len(results) < int(times):
            return Reply(tool_calls=[ScriptedToolCall(name, json.loads(args or "{}"))])
        return Reply(text="gave up: " + " | ".join(r.text for r in results))
    return respond(messages)


def make_model() -> ScriptedChatModel:
    return ScriptedChatModel(responder=responder)


def agent(setup: SessionSetup) -> Any:
    return setup.create_agent(make_model(), tools=ALL_TOOLS)


def hitl_agent(setup: SessionSetup) -> Any:
    """Human in the loop, batched: one interrupt per model response."""
    return setup.create_agent(make_model(), tools=ALL_TOOLS, middleware=[HumanInTheLoopMiddleware(GATED)])


def per_call_agent(setup: SessionSetup) -> Any:
    """Human in the loop, one interrupt per gated tool call."""
    hitl = HumanInTheLoopMiddleware(GATED, interrupt_mode="per_call")
    return setup.create_agent(make_model(), tools=ALL_TOOLS, middleware=[hitl])


hitl_graph = create_agent(make_model(), tools=ALL_TOOLS, middleware=[HumanInTheLoopMiddleware(GATED)])
"""Precompiled: nothing can be inserted, only its own interrupts reach the editor."""

per_call_graph = create_agent(
    make_model(), tools=ALL_TOOLS, middleware=[HumanInTheLoopMiddleware(GATED, interrupt_mode="per_call")]
)
"""Precompiled, one interrupt per gated tool call."""


def approve_reject_agent(setup: SessionSetup) -> Any:
    """Human in the loop where only approve and reject are allowed."""
    only = {"allowed_decisions": ["approve", "reject"]}
    hitl = HumanInTheLoopMiddleware({"write_file": only, "run_command": only})
    return setup.create_agent(make_model(), tools=ALL_TOOLS, middleware=[hitl])
