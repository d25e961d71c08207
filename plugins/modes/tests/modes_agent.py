"""Agents for the mode tests: the scripted test agent plus tools that leave a trace, and named models.

``write_file`` appends to a file and ``run_command`` appends its command to a log (it runs
nothing), so a test proves a tool never ran by the file it would have left. ``read_file``
reads. ``fast_model`` / ``smart_model`` are model factories for ``[models] choices``: they
answer ``whoami`` with their name, ``effort`` with the ``reasoning_effort`` they were called
with and ``thinking`` with the ``think`` setting (the test's thinking on/off settings).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.tools import tool

from langacp import SessionSetup
from langacp.testing.agent import TOOLS, TRACE_TOOLS, respond
from langacp.testing.model import Reply, ScriptedChatModel


@tool
def read_file(path: str) -> str:
    """Read a text file."""
    return Path(path).read_text(encoding="utf-8")


ALL_TOOLS = [*TOOLS, *TRACE_TOOLS, read_file]


def _last_human(messages: list[BaseMessage]) -> str:
    return next((m.text.strip() for m in reversed(messages) if isinstance(m, HumanMessage)), "")


def agent(setup: SessionSetup) -> Any:
    return setup.create_agent(
        ScriptedChatModel(responder=respond), tools=ALL_TOOLS, system_prompt="You are the mode test agent."
    )


class NamedModel(ScriptedChatModel):
    """A scripted model that answers ``whoami`` with its name, ``effort`` / ``thinking`` with its settings."""

    label: str = "named"

    async def _astream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        effort = kwargs.get("reasoning_effort")
        think = kwargs.get("think", "unset")
        label = self.label

        def answer(history: list[BaseMessage]) -> Reply:
            command = _last_human(history)
            if command == "whoami":
                return Reply(text=f"I am {label}")
            if command == "effort":
                return Reply(text=f"effort: {effort}")
            if command == "thinking":
                return Reply(text=f"think: {think}")
            return respond(history)

        self.responder = answer
        async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
            yield chunk


def fast_model() -> NamedModel:
    return NamedModel(label="fast")


def smart_model() -> NamedModel:
    return NamedModel(label="smart")
