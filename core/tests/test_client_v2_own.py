"""langacp.client speaking ACP v2 to langacp's own agent (``langacp serve`` of the scripted agent, a real
subprocess over real pipes): the calls and results the v1 tests of test_client_connection.py make, with
a handler that serves no fs/terminal, so that ``initialize`` asks for 2 and the agent answers 2.

The TypeScript SDK's v2 agent is driven the same way in tests/test_client_ts_agent_v2.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from core_support import agent_env, serve_command

from langacp.client import AcpConnection, PermissionPolicy
from langacp.testing.handlers import CollectingHandler


async def _open(
    conn: AcpConnection, tmp_path: Path, *, testplug: list[str] | None = None, version: int | None = None
) -> str:
    command = serve_command("agent", testplug=bool(testplug))
    env = agent_env(testplug=testplug or [], extra={"XDG_DATA_HOME": str(tmp_path / "data")})
    await conn.spawn(command[0], command[1:], cwd=tmp_path, env=env)
    await conn.initialize(protocol_version=version)
    return (await conn.new_session(tmp_path)).session_id


async def test_a_tool_turn_with_streamed_text_over_v2(tmp_path: Path) -> None:
    async with AcpConnection(CollectingHandler()) as conn:
        sid = await _open(conn, tmp_path)
        assert conn.protocol_version == 2
        assert conn.init_response is not None and conn.init_response.agent_info is not None
        assert conn.init_response.agent_info.name == "langacp"
        stream = conn.stream_prompt(sid, 'tool add {"a": 1, "b": 2}')
        kinds = [note.update.session_update async for note in stream]
        assert kinds.index("tool_call") < kinds.index("tool_call_update")
        assert stream.result is not None and stream.result.stop_reason == "end_turn"
        assert stream.result.text == "done: 3"
        thought = await conn.prompt(sid, "think deeply")
        assert thought.thought == "Let me think about that." and thought.text == "deeply"


async def test_cancel_over_v2(tmp_path: Path) -> None:
    async with AcpConnection(CollectingHandler()) as conn:
        sid = await _open(conn, tmp_path)
        stream = conn.stream_prompt(sid, "slow 30")
        async for note in stream:
            if note.update.session_update == "tool_call":
                await conn.cancel(sid)
        assert stream.result is not None and stream.result.stop_reason == "cancelled"
        assert (await conn.prompt(sid, "echo still here")).text == "still here"


async def test_a_permission_over_v2(tmp_path: Path) -> None:
    handler = CollectingHandler()
    policy = PermissionPolicy(allow=["ad?"])
    async with AcpConnection(handler, policy) as conn:
        sid = await _open(conn, tmp_path, testplug=["ask"])
        assert conn.protocol_version == 2
        assert (await conn.prompt(sid, 'tool add {"a": 1, "b": 2}')).text == "done: 3"
        policy.deny = ["title:add"]
        assert "did not run: the user declined it" in (await conn.prompt(sid, 'tool add {"a": 1, "b": 2}')).text
    assert [r.tool_call.title for r in handler.requests] == ["add", "add"]
    assert [(d.decision, d.rule) for d in policy.decisions] == [("allow", "ad?"), ("reject", "title:add")]


async def test_v1_when_asked_for_1(tmp_path: Path) -> None:
    async with AcpConnection(CollectingHandler()) as conn:
        sid = await _open(conn, tmp_path, version=1)
        assert conn.protocol_version == 1 and conn.init_response is not None
        assert conn.init_response.protocol_version == 1
        assert (await conn.prompt(sid, "echo one")).text == "one"


@pytest.mark.parametrize("version", [1, 2])
async def test_sessions_listed_and_resumed_with_replay(tmp_path: Path, version: int) -> None:
    async with AcpConnection(CollectingHandler()) as conn:
        sid = await _open(conn, tmp_path, version=version)
        await conn.prompt(sid, "echo remember me")
        listed = await conn.list_sessions(cwd=tmp_path)
        assert [s.session_id for s in listed.sessions] == [sid]
        replay: list[Any] = []
        conn.add_listener(lambda note: replay.append(note.update), sid)
        await conn.load_session(sid, tmp_path)  # v2: session/resume replaying from the start
    kinds = [u.session_update for u in replay]
    assert "user_message_chunk" in kinds
    assert "".join(u.content.text for u in replay if u.session_update == "agent_message_chunk") == "remember me"


async def test_modes_are_a_config_option_over_v2(tmp_path: Path) -> None:
    handler = CollectingHandler()
    async with AcpConnection(handler) as conn:
        command = serve_command("agent", testplug=True)
        await conn.spawn(command[0], command[1:], cwd=tmp_path, env=agent_env(testplug=["modes"]))
        await conn.initialize()
        session = await conn.new_session(tmp_path)
        assert conn.protocol_version == 2
        assert session.modes is not None and session.modes.current_mode_id == "ask"
        assert "mode" in [o.id for o in session.config_options or []]
        await conn.set_mode(session.session_id, "code")  # v2: session/set_config_option of the mode option
    assert [u.current_mode_id for u in handler.updates if u.session_update == "current_mode_update"] == ["code"]
