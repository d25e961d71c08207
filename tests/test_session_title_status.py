"""Unstable ``session/set_title`` and ``session/status`` over real pipes, with a SQLite store: advertised
and answered only to a client that speaks the unstable schema (validated against the npm SDK 2.4.0
``schema/v1/schema.unstable.json``); a stable client gets -32601 and nothing new in ``initialize``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_schema import PipeAgent, Schema, pipe_agent

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"
UNSTABLE: dict[str, Any] = {"_meta": {"unstable": True}}
STABLE: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}}


async def titles(agent: PipeAgent, msg_id: int, cwd: Path) -> dict[str, Any]:
    reply = await agent.request(msg_id, "session/list", {"cwd": str(cwd)})
    return {s["sessionId"]: s.get("title") for s in reply["result"]["sessions"]}


async def test_title_and_status_for_an_unstable_client(schemas: tuple[Schema, Schema], tmp_path: Path) -> None:
    unstable, _ = schemas
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with pipe_agent(TARGET, tmp_path, args=store) as agent:
        init = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": UNSTABLE})
        unstable.validate("InitializeResponse", init["result"])
        caps = init["result"]["agentCapabilities"]["sessionCapabilities"]
        assert caps["title"] == {} and caps["status"] == {}
        sid = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
        status = await agent.request(2, "session/status", {"sessionId": sid})
        unstable.validate("SessionStatusResponse", status["result"])
        assert status["result"]["status"] == "open"
        params = {"sessionId": sid, "title": "  My \n  title "}
        unstable.validate("SetSessionTitleRequest", params)
        titled = await agent.request(3, "session/set_title", params)
        unstable.validate("SetSessionTitleResponse", titled["result"])
        assert titled["result"] == {"title": "My title"}  # normalised: the client shows this one
        assert (await titles(agent, 4, tmp_path))[sid] == "My title"
        # Unknown ids: -32002; an empty title: -32602; the agent keeps serving.
        assert (await agent.request(5, "session/status", {"sessionId": "nope"}))["error"]["code"] == -32002
        gone = await agent.request(6, "session/set_title", {"sessionId": "nope", "title": "x"})
        assert gone["error"]["code"] == -32002
        empty = await agent.request(7, "session/set_title", {"sessionId": sid, "title": " \n "})
        assert empty["error"]["code"] == -32602
        assert (await agent.request(8, "session/status", {}))["error"]["code"] == -32602
    # Another process: the session is stored, not in memory; retitled without being opened.
    async with pipe_agent(TARGET, tmp_path, args=store) as agent:
        await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": UNSTABLE})
        assert (await agent.request(1, "session/status", {"sessionId": sid}))["result"] == {"status": "saved"}
        assert (await agent.request(2, "session/set_title", {"sessionId": sid, "title": "Renamed"}))["result"] == {
            "title": "Renamed"
        }
        assert (await agent.request(3, "session/status", {"sessionId": sid}))["result"] == {"status": "saved"}
        assert (await titles(agent, 4, tmp_path))[sid] == "Renamed"
        for note in agent.notifications:
            if note["method"] == "session/update":
                unstable.validate("SessionNotification", note["params"])


async def test_no_title_or_status_for_a_stable_client(schemas: tuple[Schema, Schema], tmp_path: Path) -> None:
    _, stable = schemas
    async with pipe_agent(TARGET, tmp_path) as agent:
        init = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": STABLE})
        stable.validate("InitializeResponse", init["result"])
        caps = init["result"]["agentCapabilities"]["sessionCapabilities"]
        assert "title" not in caps and "status" not in caps
        sid = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
        assert (await agent.request(2, "session/status", {"sessionId": sid}))["error"]["code"] == -32601
        retitle = await agent.request(3, "session/set_title", {"sessionId": sid, "title": "x"})
        assert retitle["error"]["code"] == -32601
        assert (await titles(agent, 4, tmp_path))[sid] != "x"
