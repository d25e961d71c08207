"""Graphs for tests/test_remote_with_plugins.py, run by a ``langgraph dev`` server (imported by path)."""

from __future__ import annotations

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware, TodoListMiddleware

from langacp.testing.agent import TOOLS, TRACE_TOOLS, make_model
from langacp_remote.editor import editor_tools

hitl = create_agent(
    make_model(),
    tools=[*TOOLS, *TRACE_TOOLS],
    middleware=[HumanInTheLoopMiddleware(interrupt_on={"write_file": True, "run_command": True})],
)
"""The scripted test agent; its file writes and commands interrupt for the user's approval."""

editor = create_agent(make_model(), tools=[*TOOLS, *editor_tools()])
"""The scripted agent with langacp-remote's editor tools (files and commands are the editor's)."""

planner = create_agent(make_model(), tools=TOOLS, middleware=[TodoListMiddleware()])
"""The scripted agent with LangChain's todo list (``write_todos``), which langacp-plans shows as the plan."""
