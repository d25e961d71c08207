"""The benchmark's graph served by a peer ACP adapter: ``python peer_agent.py langchain-acp|deepagents-acp``.

Run by ``tests/bench/forms.py`` with the interpreter of a separate virtual environment where
the peer is installed (``.bench/peers``, git-ignored), and ``core/src`` on ``PYTHONPATH`` for
the scripted model. The graph is the one langacp serves: ``create_agent`` with the same
``ScriptedChatModel`` (``LANGACP_TEST_TOKEN_DELAY`` read the same way), tools, system prompt and
an ``InMemorySaver``.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any


def build_graph() -> Any:
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from langacp.testing.agent import TOOLS, make_model

    return create_agent(
        make_model(), tools=TOOLS, system_prompt="You are a scripted test agent.", checkpointer=InMemorySaver()
    )


def main(peer: str) -> None:
    if peer == "langchain-acp":
        from langchain_acp import run_acp

        run_acp(graph=build_graph())
    elif peer == "deepagents-acp":
        from acp import run_agent
        from deepagents_acp.server import AgentServerACP

        asyncio.run(run_agent(AgentServerACP(agent=build_graph())))
    else:
        raise SystemExit(f"unknown peer {peer!r}")


if __name__ == "__main__":
    main(sys.argv[1])
