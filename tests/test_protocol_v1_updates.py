"""Stable ACP v1 updates over real pipes: ``messageId`` on every chunk (live, and the same on
``session/load``), ``name`` on every tool call, ``notice`` only to a client that advertises
``session.notices``. Every update is validated against the official schema (npm
``@agentclientprotocol/sdk`` 2.4.0, ``schema/v1/schema.json``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from acp_schema import Schema, open_session, pipe_agent, prompt, validated

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"
CAPABLE: dict[str, Any] = {"session": {"notices": {}, "compaction": {}}}
PLAIN: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}}
GATED = {"notice", "compaction_update", "compaction_summary_chunk"}


def chunk_ids(updates: list[dict[str, Any]], kind: str) -> list[str]:
    return [u["messageId"] for u in updates if u["sessionUpdate"] == kind]


async def test_protocol_v1_capable_client(schema: Schema, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".langacp.toml").write_text("this is = = not toml\n")
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with pipe_agent(TARGET, tmp_path, args=store) as agent:
        sid = await open_session(agent, CAPABLE, project)
        assert await prompt(agent, 2, sid, "think about it") == "end_turn"
        assert await prompt(agent, 3, sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        live = validated(schema, agent)
    notices = [u for u in live if u["sessionUpdate"] == "notice"]
    assert notices and notices[0]["severity"] == "warning" and ".langacp.toml" in notices[0]["description"]
    assert not any("configuration not applied" in str(u.get("content")) for u in live), "said once, as a notice"
    thoughts, answers = chunk_ids(live, "agent_thought_chunk"), chunk_ids(live, "agent_message_chunk")
    assert thoughts and answers and len(set(thoughts)) == 1
    assert set(thoughts).isdisjoint(answers)
    assert len(set(answers)) == 2, "one id per model message: the thought-turn's answer, the tool turn's summary"
    calls = [u for u in live if u["sessionUpdate"] == "tool_call"]
    assert [c["name"] for c in calls] == ["add"] and calls[0]["title"]

    async with pipe_agent(TARGET, tmp_path, args=store) as agent:
        await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": CAPABLE})
        reply = await agent.request(1, "session/load", {"sessionId": sid, "cwd": str(project), "mcpServers": []})
        assert "result" in reply, reply
        replayed = validated(schema, agent)
    assert set(chunk_ids(replayed, "agent_message_chunk")) == set(answers), "the same ids on session/load"
    assert set(chunk_ids(replayed, "agent_thought_chunk")) == set(thoughts)
    users = chunk_ids(replayed, "user_message_chunk")
    assert len(users) == 2 and len(set(users)) == 2
    assert [c["name"] for c in replayed if c["sessionUpdate"] == "tool_call"] == ["add"]


async def test_protocol_v1_plain_client_gets_nothing_gated(schema: Schema, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".langacp.toml").write_text("this is = = not toml\n")
    async with pipe_agent(TARGET, tmp_path) as agent:
        sid = await open_session(agent, PLAIN, project)
        assert await prompt(agent, 2, sid, "think about it") == "end_turn"
        live = validated(schema, agent)
    assert not [u for u in live if u["sessionUpdate"] in GATED]
    said = [u["content"].get("text", "") for u in live if u["sessionUpdate"] == "agent_message_chunk"]
    assert any("configuration not applied" in text for text in said), "the old way: a message"
    assert all(u.get("messageId") for u in live if u["sessionUpdate"].endswith("_chunk")), "messageId is ungated in v1"


SUMMARIZING_AGENT = """
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.runnables import RunnableLambda

from langacp.testing.agent import TOOLS, make_model


def agent(setup):
    summarize = SummarizationMiddleware(
        make_model(),
        summarizer=RunnableLambda(lambda _: "The user added numbers."),
        trigger=("messages", 7),
        keep=("messages", 3),
    )
    return setup.create_agent(make_model(), tools=TOOLS, middleware=[summarize])
"""
SUMMARY = "Here is a summary of the conversation to date:\n\nThe user added numbers."

MODEL_SUMMARIZING_AGENT = """
import itertools

from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from langacp.testing.agent import TOOLS, make_model


def agent(setup):
    summary_model = GenericFakeChatModel(messages=itertools.repeat(AIMessage("The user added numbers.")))
    summarize = SummarizationMiddleware(summary_model, trigger=("messages", 7), keep=("messages", 3))
    return setup.create_agent(make_model(), tools=TOOLS, middleware=[summarize])
"""
"""The summary made by a model that streams it word by word (the other agent's summarizer returns it whole)."""


async def summarized_session(
    schema: Schema, tmp_path: Path, capabilities: dict[str, Any], source: str = SUMMARIZING_AGENT
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two tool turns, the second summarizing the first: (the second turn's updates, session/load's)."""
    (tmp_path / "summarizing_agent.py").write_text(source)
    env = {"PYTHONPATH": str(tmp_path)}
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with pipe_agent("summarizing_agent:agent", tmp_path, env=env, args=store) as agent:
        sid = await open_session(agent, capabilities, tmp_path)
        assert await prompt(agent, 2, sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        agent.notifications.clear()
        assert await prompt(agent, 3, sid, 'tool add {"a": 3, "b": 4}') == "end_turn"
        live = validated(schema, agent)
    async with pipe_agent("summarizing_agent:agent", tmp_path, env=env, args=store) as agent:
        await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities})
        reply = await agent.request(1, "session/load", {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []})
        assert "result" in reply, reply
        replayed = validated(schema, agent)
    return live, replayed


async def test_protocol_v1_compaction_to_a_capable_client(schema: Schema, tmp_path: Path) -> None:
    live, replayed = await summarized_session(schema, tmp_path, CAPABLE)
    compactions = [u for u in live if u["sessionUpdate"] == "compaction_update"]
    assert [c["status"] for c in compactions] == ["in_progress", "completed"]
    assert compactions[0]["compactionId"] == compactions[1]["compactionId"]
    assert compactions[1]["summary"] == [{"type": "text", "text": SUMMARY}]
    assert not [u for u in live if u["sessionUpdate"] == "agent_thought_chunk"], "the summary is not a thought"
    loaded = [u for u in replayed if u["sessionUpdate"] == "compaction_update"]
    assert [(c["status"], c["summary"]) for c in loaded] == [("completed", [{"type": "text", "text": SUMMARY}])]
    assert loaded[0]["compactionId"] == compactions[0]["compactionId"], "the same compaction on session/load"


async def test_protocol_v1_compaction_summary_streams_as_chunks(schema: Schema, tmp_path: Path) -> None:
    """A summary model's tokens go out as ``compaction_summary_chunk``: in progress -> chunks -> completed."""
    live, replayed = await summarized_session(schema, tmp_path, CAPABLE, MODEL_SUMMARIZING_AGENT)
    kinds = ("compaction_update", "compaction_summary_chunk")
    compaction = [u for u in live if u["sessionUpdate"] in kinds]
    assert compaction[0] == {
        "sessionUpdate": "compaction_update",
        "compactionId": compaction[0]["compactionId"],
        "status": "in_progress",
    }
    chunks = [u for u in compaction if u["sessionUpdate"] == "compaction_summary_chunk"]
    assert chunks and compaction[1 : 1 + len(chunks)] == chunks, "the chunks come between in progress and completed"
    assert "".join(c["content"]["text"] for c in chunks) == "The user added numbers."
    assert compaction[-1]["status"] == "completed" and compaction[-1]["summary"] == [{"type": "text", "text": SUMMARY}]
    assert {c["compactionId"] for c in compaction} == {compaction[0]["compactionId"]}
    assert not [
        u
        for u in live
        if u["sessionUpdate"] in ("agent_thought_chunk", "agent_message_chunk") and "added numbers" in str(u["content"])
    ], "the summary's tokens are not the agent's words"
    loaded = [u for u in replayed if u["sessionUpdate"] in kinds]
    assert [(c["sessionUpdate"], c["compactionId"], c["status"]) for c in loaded] == [
        ("compaction_update", compaction[0]["compactionId"], "completed")
    ], "replayed once, completed, under the live id"


async def test_protocol_v1_no_compaction_chunks_to_a_plain_client(schema: Schema, tmp_path: Path) -> None:
    live, replayed = await summarized_session(schema, tmp_path, PLAIN, MODEL_SUMMARIZING_AGENT)
    for updates in (live, replayed):
        assert not [u for u in updates if u["sessionUpdate"] in GATED]
        thoughts = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_thought_chunk"]
        assert thoughts == [SUMMARY]


async def test_protocol_v1_no_compaction_to_a_plain_client(schema: Schema, tmp_path: Path) -> None:
    live, replayed = await summarized_session(schema, tmp_path, PLAIN)
    for updates in (live, replayed):
        assert not [u for u in updates if u["sessionUpdate"] in GATED]
        thoughts = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_thought_chunk"]
        assert thoughts == [SUMMARY]


@pytest.mark.parametrize("capable", [True, False], ids=["notices", "plain"])
async def test_protocol_v1_mcp_server_not_started(schema: Schema, tmp_path: Path, capable: bool) -> None:
    """langacp-mcp says an MCP server did not start through the public ``session.notify``."""
    broken = {"name": "broken", "command": str(tmp_path / "no-such-server"), "args": [], "env": []}
    async with pipe_agent(TARGET, tmp_path, plugins=["mcp"]) as agent:
        caps = CAPABLE if capable else PLAIN
        reply = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        assert "result" in reply, reply
        reply = await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": [broken]})
        sid = reply["result"]["sessionId"]
        assert await prompt(agent, 2, sid, "echo hi") == "end_turn"
        updates = validated(schema, agent)
    notices = [u for u in updates if u["sessionUpdate"] == "notice"]
    said = "".join(u["content"].get("text", "") for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    if capable:
        assert [n["title"] for n in notices] == ["MCP server not started"] and "broken" in notices[0]["description"]
        assert "broken" not in said
    else:
        assert not notices and "broken" in said


@pytest.mark.parametrize("capable", [True, False], ids=["notices", "plain"])
async def test_protocol_v1_plugin_failed_to_load(schema: Schema, tmp_path: Path, capable: bool) -> None:
    broken_site = Path(__file__).resolve().parents[1] / "core" / "tests" / "fixtures" / "broken"
    env = {"PYTHONPATH": os.pathsep.join([str(broken_site), os.environ.get("PYTHONPATH", "")])}
    async with pipe_agent(TARGET, tmp_path, plugins=["brokenplug"], env=env) as agent:
        sid = await open_session(agent, CAPABLE if capable else PLAIN, tmp_path)
        assert (
            await prompt(agent, 2, sid, "echo hi") == "end_turn"
        )  # what follows the session's response has gone out by its end
        updates = validated(schema, agent)
    notices = [u for u in updates if u["sessionUpdate"] == "notice"]
    if capable:
        assert [(n["severity"], n["title"]) for n in notices] == [
            ("error", "Plugin brokenplug failed to load and was skipped")
        ]
    else:
        assert not notices


@pytest.mark.parametrize("capable", [True, False], ids=["notices", "plain"])
async def test_protocol_v1_tool_left_out_for_a_name_clash(schema: Schema, tmp_path: Path, capable: bool) -> None:
    site = Path(__file__).resolve().parents[1] / "core" / "tests" / "fixtures" / "site"
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]), "LANGACP_TESTPLUG": "clash"}
    async with pipe_agent(TARGET, tmp_path, plugins=["testplug"], env=env) as agent:
        sid = await open_session(agent, CAPABLE if capable else PLAIN, tmp_path)
        assert await prompt(agent, 2, sid, 'tool add {"a": 5, "b": 2}') == "end_turn"
        updates = validated(schema, agent)
    notices = [u for u in updates if u["sessionUpdate"] == "notice"]
    assert [n["title"] for n in notices] == (["Tool add left out"] if capable else [])
    said = "".join(u["content"].get("text", "") for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    assert "done: 7" in said  # the agent's own add ran
