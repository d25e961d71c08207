"""Notices over real pipes for a skipped hook, stored data that could not be read and the model-call cap:
a ``notice`` (validated against the official schema, npm ``@agentclientprotocol/sdk`` 2.4.0) only to a
client that advertises ``session.notices``, once per hook and session however often it fails; a client
that does not gets nothing new (the old way: stderr, or the agent's message)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from acp_schema import Schema, open_session, pipe_agent, prompt, validated

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"
CAPABLE: dict[str, Any] = {"session": {"notices": {}}}
PLAIN: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}}

FLAKY = """
import asyncio

from langacp.api import hookimpl


@hookimpl
def langacp_output_block(block, session):
    raise RuntimeError("flaky on purpose")


@hookimpl
async def langacp_prompt_started(session, prompt):
    await asyncio.sleep(30)
"""


def flaky_plugin(site: Path) -> dict[str, str]:
    """A plugin whose output mapper raises on every chunk and whose prompt hook never finishes in time."""
    site.mkdir()
    (site / "langacp_flaky.py").write_text(FLAKY)
    info = site / "langacp_flaky-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: langacp-flaky\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[langacp]\nflaky = langacp_flaky\n")
    return {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]), "LANGACP_HOOK_TIMEOUT": "0.3"}


def notices(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [u for u in updates if u["sessionUpdate"] == "notice"]


def said(updates: list[dict[str, Any]]) -> str:
    return "".join(u["content"].get("text", "") for u in updates if u["sessionUpdate"] == "agent_message_chunk")


@pytest.mark.parametrize("capable", [True, False], ids=["notices", "plain"])
async def test_notice_for_a_skipped_hook_once_per_hook(schema: Schema, tmp_path: Path, capable: bool) -> None:
    env = flaky_plugin(tmp_path / "site")
    async with pipe_agent(TARGET, tmp_path, plugins=["flaky"], env=env) as agent:
        sid = await open_session(agent, CAPABLE if capable else PLAIN, tmp_path)
        for n in range(2, 5):  # every chunk of three answers fails the output mapper
            assert await prompt(agent, n, sid, "echo one two three four") == "end_turn"
        second = await open_session(agent, CAPABLE if capable else PLAIN, tmp_path)
        assert await prompt(agent, 5, second, "echo again") == "end_turn"
        updates = validated(schema, agent)
        first, other = agent.updates(sid), agent.updates(second)
    assert "one two three four" in said(first), "the core's own mapper answered in its place"
    stderr = (tmp_path / "agent.stderr").read_text()
    assert "flaky on purpose" in stderr and "did not finish within 0.3 s" in stderr, "logged, as before"
    if not capable:
        assert not notices(updates)
        return
    titles = sorted(n["title"] for n in notices(first))
    assert titles == ["Plugin flaky skipped in langacp_output_block", "Plugin flaky skipped in langacp_prompt_started"]
    assert all(n["severity"] == "warning" for n in notices(first))
    [raised] = [n for n in notices(first) if n["title"].endswith("output_block")]
    assert "RuntimeError: flaky on purpose" in raised["description"]
    [slow] = [n for n in notices(first) if n["title"].endswith("prompt_started")]
    assert "did not finish within 0.3 s" in slow["description"]
    assert len(notices(other)) == 2, "once per hook and session: another session is told too"


async def corrupt_modes_data(database: Path, session_id: str) -> None:
    with sqlite3.connect(database) as db:
        [(raw,)] = db.execute("SELECT record FROM langacp_sessions WHERE session_id = ?", (session_id,)).fetchall()
        record = json.loads(raw)
        record.setdefault("data", {})["modes"] = {"auto_accept_edits": "a string, not a boolean", "model": 7}
        db.execute("UPDATE langacp_sessions SET record = ? WHERE session_id = ?", (json.dumps(record), session_id))


@pytest.mark.parametrize("capable", [True, False], ids=["notices", "plain"])
async def test_notice_for_stored_data_that_cannot_be_read(schema: Schema, tmp_path: Path, capable: bool) -> None:
    database = tmp_path / "sessions.db"
    store = ["--store", f"sqlite:///{database}"]
    caps = CAPABLE if capable else PLAIN
    async with pipe_agent(TARGET, tmp_path, plugins=["modes"], args=store) as agent:
        sid = await open_session(agent, caps, tmp_path)
        assert await prompt(agent, 2, sid, "echo hi") == "end_turn"
    await corrupt_modes_data(database, sid)
    async with pipe_agent(TARGET, tmp_path, plugins=["modes"], args=store) as agent:
        await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        reply = await agent.request(1, "session/load", {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []})
        assert "result" in reply, reply  # the session opens, its plugin data started afresh
        assert await prompt(agent, 2, sid, "echo still here") == "end_turn"
        updates = validated(schema, agent)
    assert "does not fit ModesData any more" in (tmp_path / "agent.stderr").read_text()
    if capable:
        [notice] = notices(updates)
        assert notice["title"] == "Saved modes data could not be read" and notice["severity"] == "warning"
        assert "started afresh" in notice["description"]
    else:
        assert not notices(updates)


@pytest.mark.parametrize("capable", [True, False], ids=["notices", "plain"])
async def test_notice_for_the_model_call_cap(schema: Schema, tmp_path: Path, capable: bool) -> None:
    config = tmp_path / "config" / "langacp"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[stop_reasons]\nmax_model_calls = 1\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with pipe_agent(TARGET, tmp_path, plugins=["stop_reasons"], env=env) as agent:
        sid = await open_session(agent, CAPABLE if capable else PLAIN, tmp_path)
        assert await prompt(agent, 2, sid, "tools 3") == "max_turn_requests"
        assert await prompt(agent, 3, sid, "tools 3") == "max_turn_requests"
        updates = validated(schema, agent)
    assert "reached the limit of 1 model calls" in said(updates), "the model reads why in the history"
    if capable:
        found = notices(updates)
        assert [n["title"] for n in found] == ["Model-call limit reached"] * 2, "one a prompt"
        assert "max_model_calls" in found[0]["description"]
    else:
        assert not notices(updates)
