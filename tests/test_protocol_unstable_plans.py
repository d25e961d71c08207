"""Plans by id (ACP's unstable ``plan_update`` / ``plan_removed``) over real pipes, langacp-plans installed.

A client that advertises ``clientCapabilities.plan`` keeps several plans: each ``update_plan``
call names its plan (``plan_id``, else ``main``), an empty one removes it, live and on
``session/load``; every update is validated against the official unstable schema (npm
``@agentclientprotocol/sdk`` 2.4.0, ``schema/v1/schema.unstable.json``). A client that does not
gets the stable ``plan`` update as before, and nothing new.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema import PipeAgent, Schema, pipe_agent

pytestmark = pytest.mark.asyncio

TARGET = str(Path(__file__).resolve().parents[1] / "plugins" / "plans" / "tests" / "plans_agent.py") + ":agent"
BY_ID = {"plan", "plan_update", "plan_removed"}
MAIN = [{"content": "Split the work", "status": "completed"}, {"content": "Do each part", "status": "in_progress"}]
DOCS = [{"content": "Write the page", "status": "pending", "priority": "high"}]
PROMPTS = [
    "tool update_plan " + json.dumps({"entries": MAIN}),
    "tool update_plan " + json.dumps({"entries": DOCS, "plan_id": "docs"}),
    "tool update_plan " + json.dumps({"entries": [], "plan_id": "docs"}),
]


def plan_updates(schema: Schema, agent: PipeAgent) -> list[dict[str, Any]]:
    for note in agent.notifications:
        if note["method"] == "session/update":
            schema.validate("SessionNotification", note["params"])
    return [u for u in agent.updates() if u["sessionUpdate"] in BY_ID]


async def run(schema: Schema, tmp_path: Path, capabilities: dict[str, Any]) -> tuple[Any, Any]:
    """The three plan calls live, then ``session/load`` of the session: (live plan updates, replayed ones)."""
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    init = {"protocolVersion": 1, "clientCapabilities": capabilities}
    async with pipe_agent(TARGET, tmp_path, plugins=["plans"], args=store) as agent:
        assert "result" in await agent.request(0, "initialize", init)
        sid = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
        for n, text in enumerate(PROMPTS, start=2):
            params = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
            reply = await agent.request(n, "session/prompt", params)
            assert reply["result"]["stopReason"] == "end_turn", reply
        live = plan_updates(schema, agent)
    async with pipe_agent(TARGET, tmp_path, plugins=["plans"], args=store) as agent:
        assert "result" in await agent.request(0, "initialize", init)
        reply = await agent.request(1, "session/load", {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []})
        assert "result" in reply, reply
        replayed = plan_updates(schema, agent)
    return live, replayed


async def test_plans_by_id_to_a_client_that_keeps_several(unstable_schema: Schema, tmp_path: Path) -> None:
    live, replayed = await run(unstable_schema, tmp_path, {"plan": {}})
    expected = [
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "main",
                "entries": [{**e, "priority": "medium"} for e in MAIN],
            },
        },
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "docs", "entries": DOCS}},
        {"sessionUpdate": "plan_removed", "planId": "docs"},
    ]
    assert live == expected
    assert replayed == expected, "replayed in order on session/load"


async def test_a_client_without_the_capability_gets_the_single_plan(unstable_schema: Schema, tmp_path: Path) -> None:
    live, replayed = await run(unstable_schema, tmp_path, {})
    assert [u["sessionUpdate"] for u in live] == ["plan"] * 3, "nothing new: the stable plan, as before"
    assert [len(u["entries"]) for u in live] == [2, 1, 0]
    assert replayed == live


HELPER_AGENT = """
import sys

from langacp.client import acp_agent_tool
from langacp.testing.agent import TOOLS, make_model

helper = acp_agent_tool(
    "helper",
    command=[sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent", "-p", "plans"],
    description="Delegate a task to the helper agent.",
)


def agent(setup):
    return setup.create_agent(make_model(), tools=[*TOOLS, helper])
"""


@pytest.mark.parametrize("capable", [True, False], ids=["plan", "plain"])
async def test_a_sub_agents_plan_is_a_plan_of_its_own(unstable_schema: Schema, tmp_path: Path, capable: bool) -> None:
    """An ``acp_agent_tool``'s sub-agent writes a plan: to a client with ``plan`` (not ``subagents``) it is
    the plan whose id is the tool call's; to any other, as before, it is not shown."""
    (tmp_path / "helper_agent.py").write_text(HELPER_AGENT)
    async with pipe_agent("helper_agent:agent", tmp_path, env={"PYTHONPATH": str(tmp_path)}) as agent:
        init = {"protocolVersion": 1, "clientCapabilities": {"plan": {}} if capable else {}}
        assert "result" in await agent.request(0, "initialize", init)
        sid = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
        task = "tool update_plan " + json.dumps({"entries": DOCS})
        text = "tool helper " + json.dumps({"prompt": task})
        reply = await agent.request(2, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
        assert reply["result"]["stopReason"] == "end_turn", reply
        updates = plan_updates(unstable_schema, agent)
    [call] = [u for u in agent.updates() if u["sessionUpdate"] == "tool_call" and u["title"] == "helper"]
    if capable:
        plan = {"type": "items", "planId": call["toolCallId"], "entries": DOCS}
        assert updates == [{"sessionUpdate": "plan_update", "plan": plan}]
    else:
        assert updates == []


@pytest.mark.parametrize(
    "capabilities", [{"plan": {}}, {"plan": {}, "subagents": {}}, {}], ids=["plan", "subagents", "plain"]
)
async def test_a_task_tools_plan(unstable_schema: Schema, tmp_path: Path, capabilities: dict[str, Any]) -> None:
    """A deepagents-style ``task`` tool's inner graph writes its todos: to a client with ``plan`` they are the
    plan whose id is the tool call's; with ``subagents`` too, the child session's ``main`` plan; else not shown."""
    from test_protocol_unstable_subagents import SUBAGENT_AGENT

    (tmp_path / "subagent_agent.py").write_text(SUBAGENT_AGENT)
    env = {"PYTHONPATH": str(tmp_path)}
    async with pipe_agent("subagent_agent:agent", tmp_path, env=env, plugins=["plans"]) as agent:
        init = {"protocolVersion": 1, "clientCapabilities": capabilities}
        assert "result" in await agent.request(0, "initialize", init)
        sid = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
        todos = "tool write_todos " + json.dumps({"todos": DOCS})
        text = "tool task " + json.dumps({"description": todos})
        reply = await agent.request(2, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
        assert reply["result"]["stopReason"] == "end_turn", reply
        updates = plan_updates(unstable_schema, agent)
    [call] = [u for u in agent.updates(sid) if u["sessionUpdate"] == "tool_call" and u["title"] == "task"]
    entries = DOCS
    child = [n["params"]["sessionId"] for n in agent.notifications if n["params"].get("sessionId") != sid]
    if "subagents" in capabilities:
        assert updates == [
            {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": entries}}
        ]
        assert [u for u in agent.updates(child[0]) if u["sessionUpdate"] == "plan_update"] == updates
    elif capabilities:
        plan = {"type": "items", "planId": call["toolCallId"], "entries": entries}
        assert updates == [{"sessionUpdate": "plan_update", "plan": plan}] and not child
    else:
        assert updates == [] and not child
