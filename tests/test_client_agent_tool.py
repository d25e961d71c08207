"""acp_agent_tool inside a langacp-served agent: a sub-agent (``langacp serve`` with
langacp-permissions) whose progress reaches the editor nested under the parent tool call, whose
permission requests the editor answers, and whose turn is cancelled with the parent's."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from langacp.client import RecordingClient, load_activity
from langacp.testing.harness import serve

pytestmark = pytest.mark.asyncio

PARENT = """
import os, sys
from langacp.client import RecordingHandler, acp_agent_tool
from langacp.testing.agent import TOOLS, make_model

SUB = [sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent", "-p", "permissions"]


def agent(setup):
    helper = acp_agent_tool(
        "helper",
        command=SUB,
        description="Delegate a task to the helper agent.",
        handler=RecordingHandler(os.environ["SUB_ACTIVITY"]),
        session=setup.session,
    )
    return setup.create_agent(make_model(), tools=[*TOOLS, helper])
"""


NATURAL = """
import sys
from langacp.client import acp_agent_tool
from langacp.testing.agent import TOOLS, make_model

helper = acp_agent_tool(
    "helper",
    command=[sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent", "-p", "permissions"],
    description="Delegate a task to the helper agent.",
)


def agent(setup):
    return setup.create_agent(make_model(), tools=[*TOOLS, helper])
"""
"""The tool built the natural way: once, at import, with no ``session=``."""

NODE_GRAPH = """
import sys
from langgraph.graph import END, START, MessagesState, StateGraph
from langacp.client import acp_node

node = acp_node(
    "helper",
    command=[sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent", "-p", "permissions"],
)
builder = StateGraph(MessagesState)
builder.add_node("helper", node)
builder.add_edge(START, "helper")
builder.add_edge("helper", END)
graph = builder.compile()
"""


def _delegate(prompt: str) -> str:
    return "tool helper " + json.dumps({"prompt": prompt})


def _meta(update: Any) -> dict[str, Any]:
    return dict(update.field_meta or {})


@pytest.fixture
def parent(tmp_path: Path) -> Path:
    path = tmp_path / "parent_agent.py"
    path.write_text(PARENT)
    return path


async def test_sub_agent_text_is_nested_under_the_tool_call(parent: Path, tmp_path: Path) -> None:
    env = {"SUB_ACTIVITY": str(tmp_path / "sub.jsonl")}
    async with serve(f"{parent}:agent", env=env, cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _delegate("long 40")) == "end_turn"
        [start] = agent.client.of(sid, "tool_call")
        assert start.title == "helper"
        nested = [u for u in agent.client.of(sid, "tool_call_update") if _meta(u).get("parentToolCallId")]
        assert nested and all(u.tool_call_id == start.tool_call_id for u in nested)
        assert {_meta(u)["parentToolCallId"] for u in nested} == {start.tool_call_id}
        answer = "".join(f"w{i} " for i in range(40))
        assert nested[-1].content[0].content.text == answer  # the whole text, sent as it grew
        assert len(nested) < 40  # not one update per token
        assert agent.client.text(sid) == f"done: {answer}"
        other = await agent.new_session()  # a second session builds its own tool: same sub-agent process
        assert await agent.prompt(other, _delegate("echo again")) == "end_turn"
        assert agent.client.text(other) == "done: again"
    activity = load_activity(tmp_path / "sub.jsonl")
    turns = [(e["type"], e["sessionId"]) for e in activity if e["type"] in ("prompt:sent", "message:complete")]
    assert [t for t, _ in turns] == ["prompt:sent", "message:complete"] * 2
    assert len({s for _, s in turns}) == 2  # two sub-agent sessions, recorded by the first handler: one process


async def test_sub_agent_tool_calls_and_permissions_reach_the_editor(parent: Path, tmp_path: Path) -> None:
    env = {"SUB_ACTIVITY": str(tmp_path / "sub.jsonl")}
    client = RecordingClient(answer="allow_once")
    async with serve(f"{parent}:agent", env=env, cwd=tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _delegate('tool add {"a": 1, "b": 2}')) == "end_turn"
        parent_id = next(u.tool_call_id for u in client.of(sid, "tool_call") if u.title == "helper")
        sub_calls = [u for u in client.of(sid, "tool_call") if u.tool_call_id.startswith(parent_id + "/")]
        assert [u.title for u in sub_calls] == ["add"]
        assert _meta(sub_calls[0]) == {"parentToolCallId": parent_id}
        sub_done = [
            u
            for u in client.of(sid, "tool_call_update")
            if u.tool_call_id == sub_calls[0].tool_call_id and u.status == "completed"
        ]
        assert sub_done
        [request] = client.permission_requests
        assert request.session_id == sid
        assert request.tool_call.tool_call_id == sub_calls[0].tool_call_id
        assert request.tool_call.title == "add" and _meta(request.tool_call) == {"parentToolCallId": parent_id}
        assert client.text(sid) == "done: done: 3"  # the sub-agent ran add after the editor allowed it
        # rejected in the editor: the sub-agent's tool does not run
        client.answer = "reject_once"
        assert await agent.prompt(sid, _delegate('tool add {"a": 5, "b": 5}')) == "end_turn"
        assert "10" not in client.text(sid).split("done: done: 3", 1)[1]
    results = [e for e in load_activity(tmp_path / "sub.jsonl") if e["type"] == "permission:result"]
    assert [(e["decision"], e["source"]) for e in results] == [("allow", "ask_else"), ("reject", "ask_else")]


async def test_cancelling_the_parent_cancels_the_sub_agent(parent: Path, tmp_path: Path) -> None:
    activity = tmp_path / "sub.jsonl"
    async with serve(f"{parent}:agent", env={"SUB_ACTIVITY": str(activity)}, cwd=tmp_path) as agent:
        sid = await agent.start()
        turn = asyncio.ensure_future(agent.prompt(sid, _delegate("slow 60")))

        def sub_tool_started(updates: list[tuple[str, Any]]) -> bool:
            return any(u.session_update == "tool_call" and "/" in u.tool_call_id for _, u in updates)

        await agent.client.wait_for(sub_tool_started, timeout=60)
        started = time.monotonic()
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 30) == "cancelled"
        assert time.monotonic() - started < 20
        deadline = time.monotonic() + 20
        ended: list[dict[str, Any]] = []
        while time.monotonic() < deadline and not ended:  # the sub-agent's turn ends, cancelled
            await asyncio.sleep(0.2)
            if activity.exists():
                ended = [e for e in load_activity(activity) if e["type"] == "message:complete"]
        assert [e["stopReason"] for e in ended] == ["cancelled"]
        assert agent.stderr().count("Traceback") == 0, agent.stderr()


async def test_tool_without_a_session_answers_by_its_policy(tmp_path: Path) -> None:
    from langacp.client import PermissionPolicy, acp_agent_tool

    command = [sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent", "-p", "permissions"]
    policy = PermissionPolicy(deny=["add"])
    env = {"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1", "XDG_DATA_HOME": str(tmp_path / "data")}
    tool = acp_agent_tool("helper", command=command, description="d", permission_policy=policy, cwd=tmp_path, env=env)

    try:
        first = await tool.ainvoke({"prompt": "echo plain call"})
        call = {"type": "tool_call", "id": "c1", "name": "helper", "args": {"prompt": 'tool add {"a": 1, "b": 1}'}}
        second = await tool.ainvoke(call)
        conn = tool.spec.manager.get("helper")
        assert conn is not None and conn.process is not None
        pid, version = conn.process.pid, conn.protocol_version
    finally:
        await tool.aclose()
    assert version == 2  # the default handler serves no fs/terminal: the sub-agent is asked for v2
    assert first == "plain call"
    assert "declined" in second.content and "done: 2" not in second.content
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    assert [(d.title, d.decision, d.source) for d in policy.decisions] == [("add", "reject", "policy")]


async def test_acp_node_streams_the_sub_agent_on_the_custom_stream(tmp_path: Path) -> None:
    from langgraph.graph import END, START, MessagesState, StateGraph

    from langacp.client import ConnectionManager, acp_node

    command = [sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent"]
    env = {"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1", "XDG_DATA_HOME": str(tmp_path / "data")}
    async with ConnectionManager() as manager:
        node = acp_node("helper", command=command, cwd=tmp_path, env=env, manager=manager)
        graph = StateGraph(MessagesState)
        graph.add_node("helper", node)
        graph.add_edge(START, "helper")
        graph.add_edge("helper", END)
        compiled = graph.compile()
        custom: list[Any] = []
        final: Any = None
        start = {"messages": [("user", "long 30")]}
        async for mode, chunk in compiled.astream(start, stream_mode=["custom", "values"]):
            if mode == "custom":
                custom.append(chunk)
            else:
                final = chunk
        conn = manager.get("helper")
        assert conn is not None and conn.process is not None
        pid, version = conn.process.pid, conn.protocol_version
    assert version == 2
    answer = "".join(f"w{i} " for i in range(30))
    assert final["messages"][-1].text == answer and final["messages"][-1].name == "helper"
    assert {c["acp_agent"] for c in custom} == {"helper"}
    streamed = [c["notification"].update for c in custom]
    assert "".join(u.content.text for u in streamed if u.session_update == "agent_message_chunk") == answer
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)


async def test_a_tool_built_without_the_session_finds_it(tmp_path: Path) -> None:
    """No ``session=``: the tool finds the session whose turn runs it, and nests the sub-agent's work."""
    (tmp_path / "natural_agent.py").write_text(NATURAL)
    client = RecordingClient(answer="allow_once")
    async with serve(f"{tmp_path / 'natural_agent.py'}:agent", cwd=tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _delegate('tool add {"a": 1, "b": 2}')) == "end_turn"
        parent_id = next(u.tool_call_id for u in client.of(sid, "tool_call") if u.title == "helper")
        sub_calls = [u for u in client.of(sid, "tool_call") if u.tool_call_id.startswith(parent_id + "/")]
        assert [u.title for u in sub_calls] == ["add"]
        assert _meta(sub_calls[0]) == {"parentToolCallId": parent_id}
        nested_text = [
            u for u in client.of(sid, "tool_call_update") if u.tool_call_id == parent_id and _meta(u) and u.content
        ]
        assert nested_text and nested_text[-1].content[0].content.text == "done: 3"
        [request] = client.permission_requests  # the sub-agent's question, asked of this editor
        assert request.session_id == sid and request.tool_call.tool_call_id == sub_calls[0].tool_call_id
        assert client.text(sid) == "done: done: 3"


async def test_a_served_acp_node_shows_its_run_as_a_tool_call(tmp_path: Path) -> None:
    (tmp_path / "node_graph.py").write_text(NODE_GRAPH)
    client = RecordingClient(answer="allow_once")
    async with serve(f"{tmp_path / 'node_graph.py'}:graph", cwd=tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 2, "b": 2}') == "end_turn"
        [start, *sub_calls] = client.of(sid, "tool_call")
        assert start.title == "helper" and start.status == "in_progress"
        assert [(u.title, u.tool_call_id.startswith(start.tool_call_id + "/")) for u in sub_calls] == [("add", True)]
        assert _meta(sub_calls[0]) == {"parentToolCallId": start.tool_call_id}
        [request] = client.permission_requests
        assert request.tool_call.tool_call_id == sub_calls[0].tool_call_id
        ends = [u for u in client.of(sid, "tool_call_update") if u.tool_call_id == start.tool_call_id and u.status]
        assert [u.status for u in ends] == ["completed"]
        texts = [u for u in client.of(sid, "tool_call_update") if u.tool_call_id == start.tool_call_id and u.content]
        assert texts[-1].content[0].content.text == "done: 4"
