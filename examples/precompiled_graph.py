"""Serving a graph you already compiled: ``langacp serve examples/precompiled_graph.py:graph``.

Text, tool calls, cancel and stop reasons work. Plugins cannot insert middleware or tools
into a compiled graph, so permission policies and modes are not enforced before its tools
run; prefer a factory (see quickstart.py).
"""

from __future__ import annotations

from langchain.agents import create_agent
from langchain_core.tools import tool

from langacp.testing.agent import make_model


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


graph = create_agent(make_model(), tools=[shout])
