"""langacp.client against an ACP v2 agent that is not langacp: the ACP TypeScript SDK's experimental
v2 agent side behind its protocol router (tests/fixtures/ts_agent/agent_v2.mjs, npm-installed), over
real pipes. The same calls as with v1 give the same objects; the version shows only in
``protocol_version``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from langacp.client import AcpConnection, PermissionPolicy, PermissionRequest, RecordingHandler
from langacp.testing.handlers import CollectingHandler
from ts_agent_support import NoNode, install_ts_agent, npm_dir

V2_CHAT = {**os.environ, "LANGACP_CHAT_PROTOCOL": "2"}
"""The chat asks for ACP v2 (its default, whatever the environment running the tests says)."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# The project\n")
    return tmp_path


async def _connect(conn: AcpConnection, command: list[str], project: Path, version: int | None = None) -> str:
    await conn.spawn(command[0], command[1:], cwd=project)
    await conn.initialize(protocol_version=version)
    return (await conn.new_session(project)).session_id


async def test_turn_with_tool_calls_text_and_a_permission(ts_agent_v2: list[str], project: Path) -> None:
    seen = CollectingHandler()
    async with AcpConnection(seen, PermissionPolicy(allow=["edit"])) as conn:
        await conn.spawn(ts_agent_v2[0], ts_agent_v2[1:], cwd=project)
        init = await conn.initialize()  # asks for 2 by default: the handler serves no fs/terminal
        assert conn.protocol_version == 2 and init.protocol_version == 2
        assert init.agent_info is not None and init.agent_info.name == "langacp-test-ts-agent-v2"
        session = await conn.new_session(project)
        stream = conn.stream_prompt(session.session_id, "change the configuration")
        kinds = [note.update.session_update async for note in stream]
    result = stream.result
    assert result is not None and result.stop_reason == "end_turn"
    assert result.text == "I'll read the project first. Updated the configuration."
    assert result.thought == "Planning the change."
    assert result.response.field_meta is not None and result.response.field_meta["messageId"].startswith("user_")
    assert kinds[:3] == ["user_message_chunk", "agent_thought_chunk", "agent_message_chunk"]
    assert "state_update" not in kinds  # the lifecycle is the turn's end, not an update
    # upserts by id: the first sight of a tool call is a tool_call, each patch a tool_call_update
    first, *patches = seen.tool_updates("call_1")
    assert first.session_update == "tool_call" and first.title == "Reading README.md" and first.kind == "read"
    assert [p.session_update for p in patches] == ["tool_call_update"] * 3
    assert patches[1].content[0].content.text == "# The project\n"  # a content chunk appended
    assert patches[2].status == "completed" and patches[2].locations == []  # null clears
    assert (project / "config.json").read_text() == '{"host": "new-host"}\n'  # the agent did its own edit
    # the permission: v2's title and subject reach the handler and the policy
    (request,) = seen.requests
    assert request.title == "Allow modifying config.json?"
    assert request.subject is not None and request.subject["type"] == "tool_call"
    assert request.tool_call.tool_call_id == "call_2" and request.tool_call.kind == "edit"
    assert [(d.decision, d.option_id) for d in conn.policy.decisions] == [("allow", "allow")]
    assert [u.session_update for u in seen.tool_updates("call_2")][-1] == "tool_call_update"
    assert seen.tool_updates("call_2")[-1].status == "completed"
    assert any(u.session_update == "usage_update" and u.used == 1234 for u in seen.updates)


async def test_permission_rejected_by_policy_and_recorded(ts_agent_v2: list[str], project: Path) -> None:
    policy = PermissionPolicy(deny=["Modifying *"])
    rec = RecordingHandler(inner=CollectingHandler())
    async with AcpConnection(rec, policy) as conn:
        sid = await _connect(conn, ts_agent_v2, project)
        result = await conn.prompt(sid, "change the configuration")
    assert result.text.endswith(" Skipped the configuration change.")
    (asked,) = rec.of("permission:request")
    assert asked["question"] == "Allow modifying config.json?" and asked["title"] == "Modifying config.json"
    assert [e["status"] for e in rec.of("tool:result")] == ["completed", "failed"]
    assert rec.of("message:complete")[0]["text"] == result.text
    assert not (project / "config.json").exists()
    assert [(d.decision, d.rule) for d in policy.decisions] == [("reject", "Modifying *")]


async def test_cancel_the_turn_and_cancel_one_tool_call(ts_agent_v2: list[str], project: Path) -> None:
    seen = CollectingHandler()
    async with AcpConnection(seen) as conn:
        sid = await _connect(conn, ts_agent_v2, project)
        stream = conn.stream_prompt(sid, "slow")
        async for note in stream:
            if note.update.session_update == "tool_call":
                await conn.cancel(sid)
        assert stream.result is not None and stream.result.stop_reason == "cancelled"
        assert seen.updates[-1].session_update == "tool_call_update"
        assert seen.updates[-1].status == "failed"  # v2's "cancelled", in v1's words

        turn = asyncio.ensure_future(conn.prompt(sid, "slow"))
        while not conn.cancellable_tool_calls(sid):
            await asyncio.sleep(0.02)
        (tool_call_id,) = conn.cancellable_tool_calls(sid)
        await conn.cancel_tool_call(sid, tool_call_id)
        result = await asyncio.wait_for(turn, 30)
        assert result.stop_reason == "end_turn"  # only the tool call stopped: the turn went on
        assert result.text == "waiting the tool was cancelled"
        assert seen.tool_updates(tool_call_id)[-1].status == "failed"
        assert conn.cancellable_tool_calls(sid) == []


async def test_a_withdrawn_permission_question_stops_being_asked(ts_agent_v2: list[str], project: Path) -> None:
    asked, withdrawn = asyncio.Event(), asyncio.Event()

    async def ask(request: PermissionRequest) -> str:
        asked.set()
        try:
            await asyncio.Event().wait()  # a user who never answers
        except asyncio.CancelledError:
            withdrawn.set()
            raise
        return "allow"

    async with AcpConnection(CollectingHandler(), PermissionPolicy(ask_else=ask)) as conn:
        sid = await _connect(conn, ts_agent_v2, project)
        turn = asyncio.ensure_future(conn.prompt(sid, "ask"))
        await asyncio.wait_for(asked.wait(), 30)
        await conn.cancel(sid)  # the agent withdraws its question ($/cancel_request) and ends the turn
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        await asyncio.wait_for(withdrawn.wait(), 5)


async def test_agent_terminal_shows_as_its_tool_calls_content(ts_agent_v2: list[str], project: Path) -> None:
    seen = CollectingHandler()
    async with AcpConnection(seen) as conn:
        sid = await _connect(conn, ts_agent_v2, project)
        await conn.prompt(sid, "terminal")
    calls = [u for u in seen.updates if u.session_update in ("tool_call", "tool_call_update")]
    assert calls[0].session_update == "tool_call" and calls[0].kind == "execute"
    texts = [u.content[0].content.text if u.content else None for u in calls]
    assert texts == [None, "from the ", "from the terminal\n", "from the terminal\n\n[exit 0]"]


async def test_resume_replays_the_conversation(ts_agent_v2: list[str], project: Path) -> None:
    async with AcpConnection(CollectingHandler(), PermissionPolicy(allow=["edit"])) as conn:
        sid = await _connect(conn, ts_agent_v2, project)
        live = await conn.prompt(sid, "change the configuration")
        replayed: list[Any] = []
        conn.add_listener(lambda note: replayed.append(note.update), sid)
        loaded = await conn.load_session(sid, project)  # v2: session/resume with replayFrom start
        sessions = await conn.list_sessions(project)
    assert loaded.modes is not None and loaded.modes.current_mode_id == "ask"
    kinds = [u.session_update for u in replayed]
    assert kinds[0] == "user_message_chunk" and replayed[0].content.text == "change the configuration"
    text = "".join(u.content.text for u in replayed if u.session_update == "agent_message_chunk")
    assert text == live.text
    calls = {u.tool_call_id: u for u in replayed if u.session_update == "tool_call"}
    assert calls["call_1"].status == "completed" and calls["call_1"].locations is None  # whole, as it stands
    assert calls["call_2"].status == "completed"
    assert [s.session_id for s in sessions.sessions] == [sid]


async def test_config_options_and_modes(ts_agent_v2: list[str], project: Path) -> None:
    seen = CollectingHandler()
    async with AcpConnection(seen) as conn:
        await conn.spawn(ts_agent_v2[0], ts_agent_v2[1:], cwd=project)
        await conn.initialize()
        session = await conn.new_session(project)
        sid = session.session_id
        assert [o.id for o in session.config_options or []] == ["mode", "brief"]
        assert session.modes is not None and [m.id for m in session.modes.available_modes] == ["ask", "code"]
        assert [
            c.name
            for u in seen.updates
            if u.session_update == "available_commands_update"
            for c in u.available_commands
        ] == ["mode"]
        changed = await conn.set_config_option(sid, "brief", True)
        assert [o.current_value for o in changed.config_options] == ["ask", True]
        await conn.set_mode(sid, "code")  # v2 has no modes: the mode config option is set
        assert [u.current_mode_id for u in seen.updates if u.session_update == "current_mode_update"] == ["code"]
        assert (await conn.prompt(sid, "mode")).text == "mode code, brief true"


async def test_auth_login_and_logout(ts_agent_v2: list[str], project: Path) -> None:
    async with AcpConnection(CollectingHandler()) as conn:
        sid = await _connect(conn, ts_agent_v2, project)
        assert conn.init_response is not None and [m.id for m in conn.init_response.auth_methods] == ["token"]
        assert (await conn.prompt(sid, "whoami")).text == "not logged in"
        await conn.authenticate("token")  # v2: auth/login
        assert (await conn.prompt(sid, "whoami")).text == "logged in with token"
        await conn.logout()
        assert (await conn.prompt(sid, "whoami")).text == "not logged in"


async def test_v1_fallback(ts_agent_v2: list[str], project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    async with AcpConnection(CollectingHandler()) as conn:  # the router's v1 agent, for a client asking for 1
        sid = await _connect(conn, ts_agent_v2, project, version=1)
        assert conn.protocol_version == 1 and (await conn.prompt(sid, "hi")).text == "hello from v1"
    try:
        v1_only = install_ts_agent(npm_dir(tmp_path_factory))
    except NoNode as exc:
        pytest.skip(str(exc))
    async with AcpConnection(CollectingHandler()) as conn:  # asks for 2, the agent answers 1: v1 it is
        sid = await _connect(conn, v1_only, project)
        assert conn.protocol_version == 1 and conn.init_response is not None
        assert conn.init_response.protocol_version == 1
        assert (await conn.prompt(sid, "tokens 3")).text == "t0 t1 t2 "
        assert conn.cancellable_tool_calls(sid) == []


def test_chat_speaks_v2(ts_agent_v2: list[str], project: Path) -> None:
    chat = [sys.executable, "-m", "langacp.cli", "chat", "--prompt", "change the configuration", "--json", "--yes"]
    done = subprocess.run(
        [*chat, "--verbose", "--", *ts_agent_v2],
        cwd=project,
        env=V2_CHAT,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    text = "".join(
        e["update"]["content"]["text"]
        for e in lines
        if e.get("update", {}).get("sessionUpdate") == "agent_message_chunk"
    )
    assert text == "I'll read the project first. Updated the configuration."
    assert lines[-1].get("stopReason") == "end_turn"
    assert "ACP v2" in done.stderr  # the version shows in the debug output only
    assert (project / "config.json").exists()


def test_chat_modes_and_ctrl_c_cancels_the_tool_call_first(ts_agent_v2: list[str], project: Path) -> None:
    chat = [sys.executable, "-m", "langacp.cli", "chat"]
    typed = subprocess.run(
        [*chat, "--", *ts_agent_v2],
        input="/mode code\nmode\n",
        cwd=project,
        env=V2_CHAT,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert typed.returncode == 0, typed.stderr
    assert "mode code, brief false" in typed.stdout  # /mode set the v2 mode config option

    running = subprocess.Popen(
        [*chat, "--prompt", "slow", "--json", "--", *ts_agent_v2],
        cwd=project,
        env=V2_CHAT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert running.stdout is not None
        lines = []
        for line in running.stdout:
            lines.append(json.loads(line))
            if lines[-1].get("update", {}).get("sessionUpdate") == "tool_call":
                running.send_signal(signal.SIGINT)  # the first Ctrl-C: the tool call alone
        _, stderr = running.communicate(timeout=60)
    finally:
        running.kill()
    assert running.returncode == 0, stderr
    assert "cancelling the running tool call" in stderr
    text = "".join(
        e["update"]["content"]["text"]
        for e in lines
        if e.get("update", {}).get("sessionUpdate") == "agent_message_chunk"
    )
    assert text == "waiting the tool was cancelled" and lines[-1]["stopReason"] == "end_turn"
