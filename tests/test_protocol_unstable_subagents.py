"""Subagents (ACP's unstable ``subagent_update``, ``session_message``, ``session_message_chunk``) over real pipes.

A sub-agent's work, found from the running turn (no ``session=``): an ``acp_agent_tool`` (an
ACP agent process) and a deepagents-style ``task`` tool (a graph run inside the tool). A client
that advertises ``clientCapabilities.subagents`` sees it as a child session of its own; every
update is validated against the official unstable schema (npm ``@agentclientprotocol/sdk``
2.4.0, ``schema/v1/schema.unstable.json``). A client that does not gets what it got before:
the ``acp_agent_tool``'s work nested under the tool call (``_meta.parentToolCallId``), nothing
of the ``task`` tool's inner graph, and no update for another session.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema import PipeAgent, Schema, pipe_agent

pytestmark = pytest.mark.asyncio

SUBAGENT_AGENT = """
import sys

from langchain.agents import create_agent
from langchain.agents.middleware import TodoListMiddleware
from langchain_core.tools import tool

from langacp.client import acp_agent_tool
from langacp.testing.agent import TOOLS, make_model

helper = acp_agent_tool(
    "helper",
    command=[sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent"],
    description="Delegate a task to the helper agent.",
)

researcher = create_agent(make_model(), tools=TOOLS, middleware=[TodoListMiddleware()], name="researcher")


@tool
async def task(description: str, subagent_type: str = "general-purpose") -> str:
    \"\"\"Launch a sub-agent that works on the task on its own and answers once.\"\"\"
    state = await researcher.ainvoke({"messages": [{"role": "user", "content": description}]})
    return state["messages"][-1].text


def agent(setup):
    return setup.create_agent(make_model(), tools=[*TOOLS, helper, task])
"""
NEW_KINDS = {"subagent_update", "session_message", "session_message_chunk"}
SUB_TASK = 'tool add {"a": 2, "b": 5}'


def delegate(tool: str, task: str) -> str:
    key = "prompt" if tool == "helper" else "description"
    return f"tool {tool} " + json.dumps({key: task})


async def run(schema: Schema, tmp_path: Path, capabilities: dict[str, Any], tool: str) -> tuple[str, PipeAgent]:
    (tmp_path / "subagent_agent.py").write_text(SUBAGENT_AGENT)
    env = {"PYTHONPATH": str(tmp_path)}
    async with pipe_agent("subagent_agent:agent", tmp_path, env=env) as agent:
        init = {"protocolVersion": 1, "clientCapabilities": capabilities}
        assert "result" in await agent.request(0, "initialize", init)
        sid = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
        params = {"sessionId": sid, "prompt": [{"type": "text", "text": delegate(tool, SUB_TASK)}]}
        reply = await agent.request(2, "session/prompt", params, timeout=90)
        assert reply["result"]["stopReason"] == "end_turn", reply
    for note in agent.notifications:
        if note["method"] == "session/update":
            schema.validate("SessionNotification", note["params"])
    return sid, agent


def text(updates: list[dict[str, Any]]) -> str:
    return "".join(u["content"].get("text", "") for u in updates if u["sessionUpdate"] == "agent_message_chunk")


@pytest.mark.parametrize("tool", ["helper", "task"])
async def test_a_sub_agent_is_a_child_session(unstable_schema: Schema, tmp_path: Path, tool: str) -> None:
    sid, agent = await run(unstable_schema, tmp_path, {"subagents": {}}, tool)
    parent = agent.updates(sid)
    [announce, idle] = [u for u in parent if u["sessionUpdate"] == "subagent_update"]
    child = announce["sessionId"]
    assert child != sid and announce["title"] == tool and announce["state"] == {"state": "running"}
    assert idle == {
        "sessionUpdate": "subagent_update",
        "sessionId": child,
        "state": {"state": "idle", "stopReason": "end_turn"},
    }
    sessions = [n["params"]["sessionId"] for n in agent.notifications if n["method"] == "session/update"]
    assert set(sessions) == {sid, child}
    first_child = sessions.index(child)
    announced = next(i for i, n in enumerate(agent.notifications) if n["params"].get("update") is announce)
    assert announced < first_child, "the child is announced before any of its updates"

    [call] = [u for u in parent if u["sessionUpdate"] == "tool_call"]
    assert call["name"] == tool
    link = [u for u in parent if u.get("_meta", {}).get("subagentSessionId") == child]
    assert [u["toolCallId"] for u in link] == [call["toolCallId"]]
    asked, answered = [u for u in parent if u["sessionUpdate"] == "session_message"]
    assert (asked["senderSessionId"], asked["recipientSessionId"]) == (sid, child)
    assert asked["content"] == [{"type": "text", "text": SUB_TASK}]
    assert (answered["senderSessionId"], answered["recipientSessionId"]) == (child, sid)
    [reply] = [u for u in parent if u["sessionUpdate"] == "session_message_chunk"]
    assert reply["messageId"] == answered["messageId"] and reply["content"]["text"] == "done: 7"
    assert not [u for u in parent if "parentToolCallId" in (u.get("_meta") or {})], "not nested a second time"
    assert text(parent) == "done: done: 7"

    own = agent.updates(child)
    [incoming] = [u for u in own if u["sessionUpdate"] == "session_message"]
    assert incoming["senderMessageId"] == asked["messageId"] and incoming["content"] == asked["content"]
    assert incoming["messageId"] == asked["recipientMessageId"]
    assert [u["title"] for u in own if u["sessionUpdate"] == "tool_call"] == ["add"]
    assert [u for u in own if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"]
    assert text(own) == "done: 7"


@pytest.mark.parametrize("tool", ["helper", "task"])
async def test_a_client_without_subagents_gets_nothing_new(unstable_schema: Schema, tmp_path: Path, tool: str) -> None:
    sid, agent = await run(unstable_schema, tmp_path, {}, tool)
    updates = agent.updates()
    assert {n["params"]["sessionId"] for n in agent.notifications if n["method"] == "session/update"} == {sid}
    assert not [u for u in updates if u["sessionUpdate"] in NEW_KINDS]
    assert not [u for u in updates if "subagentSessionId" in (u.get("_meta") or {})]
    calls = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    assert text(updates) == "done: done: 7"
    if tool == "helper":  # today's nested content: the sub-agent's tool call under the helper's
        [outer, inner] = calls
        assert inner["toolCallId"].startswith(outer["toolCallId"] + "/")
        assert inner["_meta"] == {"parentToolCallId": outer["toolCallId"]}
    else:  # the inner graph's work is not shown
        assert [c["name"] for c in calls] == ["task"]


@pytest.mark.parametrize("tool", ["helper", "task"])
async def test_cancelling_the_parent_ends_the_child_cancelled(
    unstable_schema: Schema, tmp_path: Path, tool: str
) -> None:
    (tmp_path / "subagent_agent.py").write_text(SUBAGENT_AGENT)
    async with pipe_agent("subagent_agent:agent", tmp_path, env={"PYTHONPATH": str(tmp_path)}) as agent:
        init = {"protocolVersion": 1, "clientCapabilities": {"subagents": {}}}
        assert "result" in await agent.request(0, "initialize", init)
        sid = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
        params = {"sessionId": sid, "prompt": [{"type": "text", "text": delegate(tool, "slow 60")}]}
        turn = asyncio.ensure_future(agent.request(2, "session/prompt", params, timeout=60))

        def child_tool_running() -> bool:
            return any(
                n["params"]["sessionId"] != sid and n["params"]["update"]["sessionUpdate"] == "tool_call"
                for n in agent.notifications
                if n["method"] == "session/update"
            )

        for _ in range(300):
            if child_tool_running() or turn.done():
                break
            await asyncio.sleep(0.1)
        assert child_tool_running() and not turn.done()
        await agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        reply = await asyncio.wait_for(turn, 30)
        assert reply["result"]["stopReason"] == "cancelled", reply
    for note in agent.notifications:
        if note["method"] == "session/update":
            unstable_schema.validate("SessionNotification", note["params"])
    states = [u["state"] for u in agent.updates(sid) if u["sessionUpdate"] == "subagent_update"]
    assert states == [{"state": "running"}, {"state": "idle", "stopReason": "cancelled"}]
