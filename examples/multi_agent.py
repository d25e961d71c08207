"""A LangGraph graph that delegates to two ACP agents, each its own process.

    python examples/multi_agent.py [DIRECTORY]

``surveyor`` is langacp's default agent (with no model configured it runs the offline demo
model, which lists the files of a directory); ``reviewer`` is the scripted test agent. Any ACP
agent works the same way: Claude Code (``claude-code-acp``), Gemini CLI (``gemini --acp``), …
Both run under a permission policy instead of a human, and everything they do is recorded in
``activity.jsonl``. No API key is needed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from langgraph.graph import END, START, MessagesState, StateGraph

from langacp.client import ConnectionManager, PermissionPolicy, RecordingHandler, acp_node

SERVE = [sys.executable, "-m", "langacp.cli", "serve"]


def build(workdir: Path, manager: ConnectionManager, activity: Path) -> Any:
    """The graph: the surveyor lists the files, the reviewer answers about that list."""
    policy = PermissionPolicy(allow=["read", "search"], deny=["delete", "execute"], ask_else="reject")
    surveyor = acp_node(
        "surveyor",
        command=SERVE,  # the default agent
        cwd=workdir,
        manager=manager,
        permission_policy=policy,
        handler=RecordingHandler(activity),
    )

    def review_prompt(state: dict[str, Any]) -> str:
        listing = state["messages"][-1].text
        return f"echo The surveyor answered in {len(listing.split())} words."

    reviewer = acp_node(
        "reviewer",
        command=[*SERVE, "langacp.testing.agent:agent"],
        cwd=workdir,
        manager=manager,
        permission_policy=policy,
        prompt=review_prompt,
    )
    graph = StateGraph(MessagesState)
    graph.add_node("surveyor", surveyor)
    graph.add_node("reviewer", reviewer)
    graph.add_edge(START, "surveyor")
    graph.add_edge("surveyor", "reviewer")
    graph.add_edge("reviewer", END)
    return graph.compile()


async def main(workdir: Path) -> None:
    activity = Path("activity.jsonl").resolve()
    async with ConnectionManager() as manager:  # both agent processes end with it
        graph = build(workdir, manager, activity)
        result = await graph.ainvoke({"messages": [("user", "list files")]})
    for message in result["messages"][1:]:
        print(f"[{message.name}] {message.text}\n")
    print(f"activity: {activity}")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
