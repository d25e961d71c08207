"""langacp.client against an agent that is not langacp: a Node agent on the ACP TypeScript SDK
(npm ``@agentclientprotocol/sdk``, installed by npm into a temporary directory)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from langacp.client import AcpConnection, ConnectionManager, PermissionPolicy, RecordingHandler
from langacp.client.recording import EVENT_TYPES

pytestmark = pytest.mark.asyncio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# The project\n")
    return tmp_path


async def test_every_event_type_is_recorded(ts_agent: list[str], project: Path, tmp_path: Path) -> None:
    rec = RecordingHandler(tmp_path / "activity.jsonl")
    async with AcpConnection(handler=rec, permission_policy=PermissionPolicy(allow=["edit"])) as conn:
        await conn.spawn(ts_agent[0], ts_agent[1:], cwd=project)
        await conn.initialize()
        sid = (await conn.new_session(project)).session_id
        result = await conn.prompt(sid, "change the configuration")
    assert result.stop_reason == "end_turn"
    assert result.text == "I'll read the project first. Updated the configuration."
    assert set(rec.types()) == set(EVENT_TYPES)  # the agent produces every kind of event
    assert rec.of("file:read")[0] == {**rec.of("file:read")[0], "path": str(project / "README.md"), "length": 14}
    assert rec.of("file:write")[0]["content"] == '{"host": "new-host"}\n'
    assert (project / "config.json").read_text() == '{"host": "new-host"}\n'
    assert rec.of("terminal:exit")[0]["exitCode"] == 0
    assert "from the terminal" in rec.of("terminal:output")[0]["output"]
    assert rec.of("mode:change")[0]["modeId"] == "code"
    assert rec.of("message:complete")[0]["usageUpdates"] == 1
    assert [e["status"] for e in rec.of("tool:result")] == ["completed", "completed", "completed"]


async def test_streaming_and_policy_rejection(ts_agent: list[str], project: Path) -> None:
    policy = PermissionPolicy(deny=["Modifying *"], allow=["edit"])
    async with AcpConnection(permission_policy=policy) as conn:
        await conn.spawn(ts_agent[0], ts_agent[1:], cwd=project)
        await conn.initialize()
        sid = (await conn.new_session(project)).session_id
        stream = conn.stream_prompt(sid, "change the configuration")
        kinds = [note.update.session_update async for note in stream]
        assert kinds[:3] == ["agent_thought_chunk", "plan", "agent_message_chunk"]
        assert stream.result is not None and stream.result.text.endswith("Skipped the configuration change.")
        tokens = await conn.prompt(sid, "tokens 300")
        assert tokens.text == "".join(f"t{i} " for i in range(300))
    assert not (project / "config.json").exists()
    assert [(d.decision, d.rule) for d in policy.decisions] == [("reject", "Modifying *")]


async def test_cancel(ts_agent: list[str], project: Path) -> None:
    async with AcpConnection() as conn:
        await conn.spawn(ts_agent[0], ts_agent[1:], cwd=project)
        await conn.initialize()
        sid = (await conn.new_session(project)).session_id
        stream = conn.stream_prompt(sid, "slow")
        async for _ in stream:
            await conn.cancel(sid)
        assert stream.result is not None and stream.result.stop_reason == "cancelled"


async def test_manager_disposes_of_node_agents(ts_agent: list[str], project: Path) -> None:
    manager = ConnectionManager()
    conns = [await manager.connect(name, command=ts_agent[0], args=ts_agent[1:], cwd=project) for name in "ab"]
    assert await manager.connect("a", command=ts_agent[0], args=ts_agent[1:]) is conns[0]
    pids = [c.process.pid for c in conns if c.process is not None]
    await manager.dispose_all()
    await asyncio.sleep(0)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.killpg(pid, 0)
