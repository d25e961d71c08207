"""Graphs the tests' ``langgraph dev`` server runs (it imports this file by path, in its own process)."""

from __future__ import annotations

import json
from typing import Literal

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.tools import ToolRuntime, tool
from typing_extensions import TypedDict

from langacp.testing.agent import TOOLS, make_model
from langacp_remote.editor import editor_tools

graph = create_agent(make_model(), tools=TOOLS)
"""The scripted test agent (``echo …``, ``tool add {…}``, ``slow 30``, ``history``, …)."""

hitl = create_agent(make_model(), tools=TOOLS, middleware=[HumanInTheLoopMiddleware(interrupt_on={"add": True})])
"""The same agent; calls to ``add`` interrupt for approval (HumanInTheLoopMiddleware)."""

editor = create_agent(make_model(), tools=[*TOOLS, *editor_tools()])
"""The scripted agent with the editor tools: its files and commands are the editor's."""


class Context(TypedDict, total=False):
    """What the ``configured`` graph reads from its run context."""

    model: Literal["small", "large"]
    verbose: bool
    user_name: str


@tool
def show_context(runtime: ToolRuntime) -> str:
    """Show the run's context."""
    return json.dumps(runtime.context, sort_keys=True)


configured = create_agent(make_model(), tools=[*TOOLS, show_context], context_schema=Context)
"""The scripted agent with a context schema: ``model`` and ``verbose`` become config options."""
