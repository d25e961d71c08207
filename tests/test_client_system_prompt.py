"""The client's unstable ``systemPrompt`` (``append``) on ``session/new`` / ``load`` / ``resume`` reaches the
model through the system-prompt hook, over real pipes; ``initialize`` advertises
``sessionCapabilities.systemPrompt`` only to a client that speaks the unstable schema (validated
against the npm SDK 2.4.0 ``schema/v1/schema.unstable.json``); a stable client gets nothing new."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_schema import PipeAgent, Schema, pipe_agent
from ts_agent_support import NoNode, install_acp_sdk

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"
UNSTABLE: dict[str, Any] = {"_meta": {"unstable": True}}
STABLE: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}}
ADDED = "Always answer in French."
OWN = "You are a scripted test agent."


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> tuple[Schema, Schema]:
    try:
        package = install_acp_sdk(tmp_path_factory.mktemp("acp-sdk"))
    except NoNode as exc:
        pytest.skip(str(exc))
    folder = package / "schema" / "v1"
    return Schema(folder / "schema.unstable.json"), Schema(folder / "schema.json")


def system_prompt(mode: str = "append", content: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"mode": mode, "content": content if content is not None else [{"type": "text", "text": ADDED}]}


async def said(agent: PipeAgent, msg_id: int, sid: str) -> str:
    """The agent's answer to ``sysprompt``: the system prompt its model was called with."""
    before = len(agent.updates(sid))
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": "sysprompt"}]}
    reply = await agent.request(msg_id, "session/prompt", params)
    assert reply["result"]["stopReason"] == "end_turn", reply
    chunks = [u for u in agent.updates(sid)[before:] if u["sessionUpdate"] == "agent_message_chunk"]
    return "".join(c["content"].get("text", "") for c in chunks)


async def test_system_prompt_for_an_unstable_client(schemas: tuple[Schema, Schema], tmp_path: Path) -> None:
    unstable, _ = schemas
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with pipe_agent(TARGET, tmp_path, args=store) as agent:
        init = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": UNSTABLE})
        unstable.validate("InitializeResponse", init["result"])
        assert init["result"]["agentCapabilities"]["sessionCapabilities"]["systemPrompt"] == {}
        params = {"cwd": str(tmp_path), "mcpServers": [], "systemPrompt": system_prompt()}
        unstable.validate("NewSessionRequest", params)
        sid = (await agent.request(1, "session/new", params))["result"]["sessionId"]
        text = await said(agent, 2, sid)
        assert OWN in text and ADDED in text, text  # appended to the agent's own instructions
        # Without one, the agent's own instructions only.
        plain = (await agent.request(3, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]
        assert ADDED not in await said(agent, 4, plain["sessionId"])
        # What cannot be applied is an error, and no session is opened; the agent keeps serving.
        for n, bad in enumerate(
            [
                system_prompt("override"),
                system_prompt("whatever"),
                system_prompt(content=[]),
                system_prompt(content=[{"type": "image", "data": "AAAA", "mimeType": "image/png"}]),
                {"mode": "append"},
            ],
            start=5,
        ):
            reply = await agent.request(n, "session/new", {"cwd": str(tmp_path), "mcpServers": [], "systemPrompt": bad})
            assert reply.get("error", {}).get("code") == -32602, (bad, reply)
        for note in agent.notifications:
            if note["method"] == "session/update":
                unstable.validate("SessionNotification", note["params"])
    # session/load in another process: the client's prompt again (it is not stored).
    async with pipe_agent(TARGET, tmp_path, args=store) as agent:
        await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": UNSTABLE})
        params = {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": [], "systemPrompt": system_prompt()}
        unstable.validate("LoadSessionRequest", params)
        loaded = await agent.request(1, "session/load", params)
        assert "result" in loaded, loaded
        assert ADDED in await said(agent, 2, sid)


async def test_no_system_prompt_for_a_stable_client(schemas: tuple[Schema, Schema], tmp_path: Path) -> None:
    _, stable = schemas
    async with pipe_agent(TARGET, tmp_path) as agent:
        init = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": STABLE})
        stable.validate("InitializeResponse", init["result"])
        assert "systemPrompt" not in init["result"]["agentCapabilities"]["sessionCapabilities"]
        # Not advertised, so not applied (ACP: a client sends it only when advertised).
        params = {"cwd": str(tmp_path), "mcpServers": [], "systemPrompt": system_prompt()}
        sid = (await agent.request(1, "session/new", params))["result"]["sessionId"]
        text = await said(agent, 2, sid)
        assert OWN in text and ADDED not in text, text
