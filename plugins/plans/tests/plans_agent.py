"""Test targets: the scripted agent, with and without LangChain's TodoListMiddleware.

The prompt ``which tools`` answers with the names of the tools the model is offered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, TodoListMiddleware
from langchain_core.messages import AIMessage, HumanMessage

from langacp import SessionSetup
from langacp.testing.agent import TOOLS, make_model


class ReportTools(AgentMiddleware):  # type: ignore[type-arg]
    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        last = next((m for m in reversed(request.messages) if isinstance(m, HumanMessage)), None)
        if last is not None and last.text.strip() == "which tools":
            names = sorted(getattr(t, "name", None) or t.get("name", "?") for t in request.tools)
            return AIMessage(content=", ".join(names))
        return await handler(request)


def agent(setup: SessionSetup) -> Any:
    return setup.create_agent(make_model(), tools=TOOLS, middleware=[ReportTools()])


def todo_agent(setup: SessionSetup) -> Any:
    return setup.create_agent(make_model(), tools=TOOLS, middleware=[TodoListMiddleware(), ReportTools()])
