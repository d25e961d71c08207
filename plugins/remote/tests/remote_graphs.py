"""Graphs the tests' ``langgraph dev`` server runs (it imports this file by path, in its own process)."""

from __future__ import annotations

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware

from langacp.testing.agent import TOOLS, make_model
from langacp_remote.editor import editor_tools

graph = create_agent(make_model(), tools=TOOLS)
"""The scripted test agent (``echo …``, ``tool add {…}``, ``slow 30``, ``history``, …)."""

hitl = create_agent(make_model(), tools=TOOLS, middleware=[HumanInTheLoopMiddleware(interrupt_on={"add": True})])
"""The same agent; calls to ``add`` interrupt for approval (HumanInTheLoopMiddleware)."""

editor = create_agent(make_model(), tools=[*TOOLS, *editor_tools()])
"""The scripted agent with the editor tools: its files and commands are the editor's."""
