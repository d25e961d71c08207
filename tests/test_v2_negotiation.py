"""ACP v2 negotiation over real pipes: a client asking for 2 (or more) gets 2 in v2's shapes; one
asking for 1 gets exactly v1; a v2 connection never falls back. Every message the agent sends is
validated against the official ``schema/v2/schema.json`` (npm, installed by the test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_schema import Schema, pipe_agent
from v2_client import v2_agent

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"


async def test_v2_initialize_negotiates_2(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema) as agent:
        result = await agent.initialize(2)
        assert result["protocolVersion"] == 2
        assert result["info"]["name"] == "langacp" and result["info"]["version"]
        session = result["capabilities"]["session"]
        assert session["mcp"] == {"stdio": {}} and session["prompt"] == {"embeddedContext": {}}
        assert "additionalDirectories" in session
        assert "clientCapabilities" not in result and "agentCapabilities" not in result
        # A repeat that asks for 2 again is answered; one that asks for less is refused, the connection stays v2.
        assert (await agent.initialize(2))["protocolVersion"] == 2
        refused = await agent.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        assert refused["error"]["code"] == -32600
        # v1-only methods are gone on a v2 connection.
        for method in ("session/load", "session/set_mode", "authenticate", "logout"):
            reply = await agent.request(
                method, {"sessionId": "x", "cwd": str(tmp_path), "modeId": "m", "methodId": "m"}
            )
            assert reply["error"]["code"] == -32601, (method, reply)
        agent.check()


async def test_v2_newer_client_gets_2_and_bad_initialize_keeps_serving(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema) as agent:
        bad = await agent.request("initialize", {"protocolVersion": 2, "info": {"name": 3}})
        assert bad["error"]["code"] == -32602, bad
        assert (await agent.initialize(7))["protocolVersion"] == 2
        agent.check()


async def test_v1_client_gets_exactly_v1(tmp_path: Path) -> None:
    async with pipe_agent(TARGET, tmp_path) as agent:
        reply = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        result = reply["result"]
        assert result["protocolVersion"] == 1
        assert "agentCapabilities" in result and "capabilities" not in result
        for method in ("auth/login", "auth/logout", "tool_call/cancel", "terminal/cancel"):
            answer = await agent.request(1, method, {"sessionId": "x", "toolCallId": "t", "methodId": "m"})
            assert answer["error"]["code"] == -32601, (method, answer)


async def test_v2_says_when_sessions_are_forgotten(v2_schema: Schema, tmp_path: Path) -> None:
    """v2 has no ``loadSession`` flag: a memory store says so in ``capabilities._meta``, a kept store does not."""
    from langacp.protocol.v2.negotiation import FORGETS_SESSIONS

    async with v2_agent(TARGET, tmp_path, v2_schema, args=["--store", "memory"]) as agent:
        meta = (await agent.initialize(2))["capabilities"].get("_meta") or {}
        assert meta.get(FORGETS_SESSIONS) is True
        agent.check()
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with v2_agent(TARGET, tmp_path, v2_schema, args=store) as agent:
        meta = (await agent.initialize(2))["capabilities"].get("_meta") or {}
        assert FORGETS_SESSIONS not in meta
        agent.check()
