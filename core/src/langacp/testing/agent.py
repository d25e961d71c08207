"""Agents driven by the scripted test model: ``langacp serve langacp.testing.agent:agent``.

For langacp's own tests and benchmark, and for plugin authors who need a real agent to run
their plugin against without a model API key.

The model reads the last user message as a command (``echo hi``, ``tool add {"a": 1}``,
``slow 30``, ``tools 200``, …) so one subprocess can exercise every protocol path.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from langacp import SessionSetup
from langacp.testing.model import Reply, ScriptedChatModel, ScriptedToolCall


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def slow_async(seconds: float) -> str:
    """Sleep asynchronously, then say so."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}s"


@tool
def slow_sync(seconds: float) -> str:
    """Sleep in a worker thread, then say so."""
    time.sleep(seconds)
    return f"slept {seconds}s"


@tool
def explode(reason: str = "boom") -> str:
    """Always raises."""
    raise ValueError(reason)


@tool
def noisy() -> str:
    """Prints to stdout, which must not corrupt the protocol stream."""
    print("NOISY TOOL OUTPUT ON STDOUT", flush=True)
    return "printed"


TOOLS = [add, slow_async, slow_sync, explode, noisy]


@tool
def write_file(path: str, text: str) -> str:
    """Append text to the file at an absolute path."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(text + "\n")
    return f"wrote {path}"


@tool
def run_command(command: str, log: str) -> str:
    """Pretend to run a shell command: append it to the log file."""
    with open(log, "a", encoding="utf-8") as f:
        f.write(command + "\n")
    return f"ran {command}"


TRACE_TOOLS = [write_file, run_command]
"""Tools that leave a trace (a file written, a command logged, nothing run), so a test proves
that a call never ran by the file it would have left. Not in ``TOOLS``: add them to your agent."""


def _dangling(messages: list[BaseMessage]) -> int:
    """Tool calls in the thread that have no ToolMessage answering them."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return sum(1 for m in messages if isinstance(m, AIMessage) for tc in m.tool_calls if tc.get("id") not in answered)


def last_turn(messages: list[BaseMessage]) -> tuple[str, list[ToolMessage]]:
    """The last user command and the tool results that came after it."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            results.append(message)
        if isinstance(message, HumanMessage):
            return message.text.strip(), list(reversed(results))
    return "", list(reversed(results))


def _tool_call(name: str, args: dict[str, Any]) -> Reply:
    return Reply(tool_calls=[ScriptedToolCall(name, args)])


def _named_tool(rest: str) -> Reply:
    name, _, args = rest.partition(" ")
    return _tool_call(name, json.loads(args or "{}"))


def _system_prompt(messages: list[BaseMessage]) -> str:
    return next((m.text for m in messages if isinstance(m, SystemMessage)), "")


_Command = Callable[[str, list[BaseMessage]], Reply]

COMMANDS: dict[str, _Command] = {
    "echo": lambda rest, _: Reply(text=rest),
    "think": lambda rest, _: Reply(reasoning="Let me think about that.", text=rest or "thought about it"),
    "long": lambda rest, _: Reply(text="".join(f"w{i} " for i in range(int(rest)))),
    "tool": lambda rest, _: _named_tool(rest),
    "slow": lambda rest, _: Reply(
        text="waiting…", tool_calls=[ScriptedToolCall("slow_async", {"seconds": float(rest or 30)})]
    ),
    "sync_slow": lambda rest, _: _tool_call("slow_sync", {"seconds": float(rest or 30)}),
    "fail": lambda rest, _: _tool_call("explode", {"reason": rest or "boom"}),
    "parallel": lambda _rest, _: Reply(
        tool_calls=[ScriptedToolCall("add", {"a": 1, "b": 2}), ScriptedToolCall("add", {"a": 3, "b": 4})]
    ),
    "tools": lambda _rest, _: _tool_call("add", {"a": 0, "b": 1}),
    "error": lambda rest, _: Reply(error=RuntimeError(rest or "the model failed")),
    "truncated": lambda _rest, _: Reply(text="cut off mid", finish_reason="length"),
    "dangling": lambda _rest, messages: Reply(text=f"dangling: {_dangling(messages)}"),
    "sysprompt": lambda _rest, messages: Reply(text=f"system: {_system_prompt(messages)}"),
    "transcript": lambda _rest, messages: Reply(
        text=" | ".join(f"{m.type}: {m.text.strip()}" for m in messages if m.type in ("human", "ai"))
    ),
    "history": lambda _rest, messages: Reply(text=" | ".join(m.text for m in messages if isinstance(m, HumanMessage))),
}
"""The model's commands: the first word of the last user message, then the rest of it."""


def respond(messages: list[BaseMessage]) -> Reply:
    """The scripted model's reply: run the last user message's command, then sum up its tool results."""
    command, results = last_turn(messages)
    verb, _, rest = command.partition(" ")
    if results:
        if verb == "tools" and len(results) < int(rest or 1):
            return _tool_call("add", {"a": len(results), "b": 1})
        return Reply(text=f"done: {results[-1].text}")
    handler = COMMANDS.get(verb)
    return handler(rest, messages) if handler is not None else Reply(text=f"You said: {command}")


def make_model() -> ScriptedChatModel:
    """The scripted model of this agent; served, so it keeps no record of its calls (``record=False``)."""
    delay = float(os.environ.get("LANGACP_TEST_TOKEN_DELAY", "0"))
    return ScriptedChatModel(responder=respond, token_delay=delay, record=False)


def agent(setup: SessionSetup) -> Any:
    """Per-session factory: plugins' middleware and tools are merged in."""
    return setup.create_agent(make_model(), tools=TOOLS, system_prompt="You are a scripted test agent.")


_SHARED_MODEL: list[ScriptedChatModel] = []


def shared_model_agent(setup: SessionSetup) -> Any:
    """:func:`agent` written as users are told to: one model, made once, for every session (as the bare
    graph has). Its turns are :func:`agent`'s but for the ids of the model's tool calls, which run on
    across the process's sessions (``call_1`` in one session, ``call_2`` in the next) instead of
    starting again in each: the model's only state is that counter and its call count."""
    if not _SHARED_MODEL:
        _SHARED_MODEL.append(make_model())
    return setup.create_agent(_SHARED_MODEL[0], tools=TOOLS, system_prompt="You are a scripted test agent.")


def hitl_agent(setup: SessionSetup) -> Any:
    """A human-in-the-loop agent: calls to ``add`` interrupt for approval."""
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    hitl = HumanInTheLoopMiddleware(interrupt_on={"add": True})
    return setup.create_agent(make_model(), tools=TOOLS, middleware=[hitl])


graph = create_agent(make_model(), tools=TOOLS)
"""The same agent precompiled: served as is, nothing can be inserted."""


def unguarded_agent(setup: SessionSetup) -> Any:
    """A factory that forgets ``setup.middleware``: langacp must warn, and still report tools."""
    return create_agent(make_model(), tools=TOOLS, checkpointer=setup.checkpointer)
