"""langacp.client: AcpConnection, PermissionPolicy, RecordingHandler and ConnectionManager against
a real ``langacp serve`` subprocess (the scripted test agent) over real pipes.

Tests of what the connection does with a live agent (prompts, streams, cancel, permissions,
recording, sessions) share two agent processes of this module (``plain``; ``asking``, whose
tool calls ask for permission), each test in sessions of its own. An agent exiting at start-up,
the example and a new event loop start ``langacp serve`` processes of their own. Tests of how
the connection and the manager treat the process (spawn, stderr, kill, dispose) start agents
that are real processes relaying their stdio to an agent served in this process
(``core_support.agent_in_process``): no Python start-up each.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from acp.schema import SessionNotification
from core_support import SCRIPTED, agent_env, agent_in_process, serve_command

from langacp.client import (
    AcpConnection,
    AgentExited,
    ConnectionManager,
    LocalHandler,
    PermissionPolicy,
    PermissionRequest,
    RecordingHandler,
    acp_agent_tool,
    load_activity,
)
from langacp.testing.polling import eventually

# One event loop for the module: the shared agents' pipes belong to it.
pytestmark = pytest.mark.asyncio(loop_scope="module")


def _spawn_args(testplug: bool = False) -> tuple[str, list[str]]:
    command = serve_command("agent", testplug=testplug)
    return command[0], command[1:]


async def _open(conn: AcpConnection, tmp_path: Path, *, testplug: list[str] | None = None) -> str:
    command, args = _spawn_args(testplug=bool(testplug))
    env = agent_env(testplug=testplug or [], extra={"XDG_DATA_HOME": str(tmp_path / "data")})
    await conn.spawn(command, args, cwd=tmp_path, env=env)
    await conn.initialize()
    return (await conn.new_session(tmp_path)).session_id


async def _shared(tmp_path_factory: pytest.TempPathFactory, testplug: list[str]) -> AsyncIterator[AcpConnection]:
    home = tmp_path_factory.mktemp("agent")
    async with AcpConnection() as conn:
        await _open(conn, home, testplug=testplug)
        yield conn
    assert conn.process is not None and _gone(conn.process.pid)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def plain(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AcpConnection]:
    """One ``langacp serve`` of the scripted agent for the module, with the default handler and policy."""
    async for conn in _shared(tmp_path_factory, []):
        yield conn


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def asking_agent(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AcpConnection]:
    async for conn in _shared(tmp_path_factory, ["ask"]):
        yield conn


@pytest.fixture
def asking(asking_agent: AcpConnection) -> Iterator[AcpConnection]:
    """The module's agent whose tool calls ask for permission; a test sets its handler and policy."""
    yield asking_agent
    asking_agent.router.handler = LocalHandler()
    asking_agent.router.policy = PermissionPolicy()


async def _session(
    conn: AcpConnection, cwd: Path, *, handler: object = None, policy: PermissionPolicy | None = None
) -> str:
    """A new session of a shared agent, in ``cwd``, answered by ``handler`` and ``policy`` from now on."""
    if handler is not None:
        conn.router.handler = handler
    if policy is not None:
        conn.router.policy = policy
    return (await conn.new_session(cwd)).session_id


def _gone(pid: int) -> bool:
    """No process is left in the agent's process group."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_prompt_returns_stop_reason_and_whole_text(plain: AcpConnection, tmp_path: Path) -> None:
    conn = plain
    sid = await _session(conn, tmp_path)
    assert conn.init_response is not None and conn.init_response.protocol_version == 1
    result = await conn.prompt(sid, "long 50")
    assert result.stop_reason == "end_turn"
    assert result.text == "".join(f"w{i} " for i in range(50))
    thought = await conn.prompt(sid, "think deeply")
    assert thought.thought == "Let me think about that." and thought.text == "deeply"


async def test_stream_prompt_yields_notifications_in_order(plain: AcpConnection, tmp_path: Path) -> None:
    conn = plain
    sid = await _session(conn, tmp_path)
    stream = conn.stream_prompt(sid, 'tool add {"a": 1, "b": 2}')
    notes = [note async for note in stream]
    assert all(note.session_id == sid for note in notes)
    kinds = [note.update.session_update for note in notes]
    assert kinds.index("tool_call") < kinds.index("tool_call_update")
    assert stream.result is not None and stream.result.stop_reason == "end_turn"
    assert stream.result.text == "done: 3"
    streamed = "".join(n.update.content.text for n in notes if n.update.session_update == "agent_message_chunk")
    assert streamed == "done: 3"


async def test_cancel_ends_a_running_turn(plain: AcpConnection, tmp_path: Path) -> None:
    conn = plain
    sid = await _session(conn, tmp_path)
    stream = conn.stream_prompt(sid, "slow 30")
    async for note in stream:
        if note.update.session_update == "tool_call":
            await conn.cancel(sid)
    assert stream.result is not None and stream.result.stop_reason == "cancelled"
    assert (await conn.prompt(sid, "echo still here")).text == "still here"


async def test_cancelling_the_caller_cancels_the_turn(plain: AcpConnection, tmp_path: Path) -> None:
    conn = plain
    sid = await _session(conn, tmp_path)
    started = asyncio.Event()
    conn.add_listener(lambda note: started.set() if note.update.session_update == "tool_call" else None, sid)
    task = asyncio.ensure_future(conn.prompt(sid, "slow 30"))
    await asyncio.wait_for(started.wait(), 20)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the agent got session/cancel: the next turn runs at once instead of queueing behind 30 s
    result = await asyncio.wait_for(conn.prompt(sid, "echo next"), 20)
    assert result.text == "next"


async def test_permission_policy_by_title_kind_and_fallback(asking: AcpConnection, tmp_path: Path) -> None:
    asked: list[PermissionRequest] = []

    def ask(request: PermissionRequest) -> str:
        asked.append(request)
        return "allow_once"

    policy = PermissionPolicy(allow=["ad?"], ask_else=ask)
    conn = asking
    sid = await _session(conn, tmp_path, policy=policy)
    assert (await conn.prompt(sid, 'tool add {"a": 1, "b": 2}')).text == "done: 3"
    policy.deny = ["title:add"]  # deny wins over allow
    denied = await conn.prompt(sid, 'tool add {"a": 1, "b": 2}')
    assert "did not run: the user declined it" in denied.text
    policy.allow, policy.deny = [], []
    assert (await conn.prompt(sid, 'tool add {"a": 2, "b": 2}')).text == "done: 4"
    assert [r.tool_call.title for r in asked] == ["add"]
    assert [(d.title, d.decision, d.option_id, d.source, d.rule) for d in policy.decisions] == [
        ("add", "allow", "allow_once", "policy", "ad?"),
        ("add", "reject", "reject_once", "policy", "title:add"),
        ("add", "allow", "allow_once", "ask_else", None),
    ]


async def test_kind_rules_and_reject_by_default(asking: AcpConnection, tmp_path: Path) -> None:
    policy = PermissionPolicy(allow=["kind:read"])
    sid = await _session(asking, tmp_path, policy=policy)
    result = await asking.prompt(sid, 'tool add {"a": 1, "b": 2}')
    assert "done: 3" not in result.text
    assert [(d.kind, d.decision, d.source) for d in policy.decisions] == [("other", "reject", "ask_else")]


async def test_recording_handler_writes_every_event(asking: AcpConnection, tmp_path: Path) -> None:
    path = tmp_path / "activity.jsonl"
    rec = RecordingHandler(path)
    conn = asking
    sid = await _session(conn, tmp_path, handler=rec, policy=PermissionPolicy(allow=["add"]))
    await conn.prompt(sid, "think hard")
    await conn.prompt(sid, 'tool add {"a": 2, "b": 3}')
    await rec.aclose()  # as the connection's close does
    types = set(rec.types())
    expected = {"prompt:sent", "message:chunk", "thought:chunk", "tool:call", "tool:result"}
    expected |= {"permission:request", "permission:result", "message:complete"}
    assert expected <= types, types
    assert load_activity(path) == rec.events  # the file holds exactly what is in memory
    assert all(e["sessionId"] == sid and isinstance(e["timestamp"], float) for e in rec.events)
    complete = rec.of("message:complete")
    assert [(c["stopReason"], c["text"]) for c in complete] == [("end_turn", "hard"), ("end_turn", "done: 5")]
    assert rec.of("prompt:sent")[1]["text"] == 'tool add {"a": 2, "b": 3}'
    result = rec.of("permission:result")[0]
    assert (result["decision"], result["source"], result["rule"]) == ("allow", "policy", "add")
    assert rec.of("tool:result")[0]["status"] == "completed"
    replayed = RecordingHandler.replay(path)
    assert replayed.types() == rec.types()


async def test_sessions_listed_and_loaded(plain: AcpConnection, tmp_path: Path) -> None:
    conn = plain
    sid = await _session(conn, tmp_path)
    await conn.prompt(sid, "echo remember me")
    listed = await conn.list_sessions(cwd=tmp_path)
    assert [s.session_id for s in listed.sessions] == [sid]  # this directory's only session
    replay: list[str] = []
    conn.add_listener(lambda note: replay.append(note.update.session_update), sid)
    await conn.load_session(sid, tmp_path)
    assert "user_message_chunk" in replay and "agent_message_chunk" in replay


async def test_agent_that_exits_reports_its_stderr(tmp_path: Path) -> None:
    conn = AcpConnection()
    await conn.spawn(
        sys.executable, ["-m", "langacp.cli", "serve", "--model", "groq:llama-3.3-70b"], env=agent_env(), cwd=tmp_path
    )
    with pytest.raises(AgentExited) as caught:
        await conn.initialize()
    await conn.close()
    assert caught.value.returncode == 2
    assert "pip install langchain-groq" in str(caught.value)
    assert any("langchain-groq" in line for line in conn.stderr_tail)


async def test_chatty_stderr_does_not_block_the_agent(tmp_path: Path) -> None:
    lines: list[str] = []
    # 4 MB on stderr before serving: far more than a pipe holds, so an undrained stderr blocks the agent.
    chatty = "for i in range(20000):\n    sys.stderr.write(f'chatty line {i} ' + 'x' * 200 + '\\n')\nsys.stderr.flush()"
    async with agent_in_process(prelude=f"import sys\n{chatty}") as command:
        async with AcpConnection(on_stderr=lines.append, stderr_lines=5) as conn:
            await conn.spawn(command[0], command[1:], cwd=tmp_path)
            await conn.initialize()
            sid = (await conn.new_session(tmp_path)).session_id
            for _ in range(3):
                assert (await conn.prompt(sid, "long 200")).stop_reason == "end_turn"
    assert len(lines) >= 20000 and len(conn.stderr_tail) == 5  # all seen, the last five kept


async def test_manager_reuses_and_disposes_of_everything(tmp_path: Path) -> None:
    async with agent_in_process() as helper, agent_in_process() as other_agent:
        await _reuses_and_disposes(tmp_path, helper, other_agent)


async def _reuses_and_disposes(tmp_path: Path, helper: list[str], other_agent: list[str]) -> None:
    command, args = helper[0], helper[1:]
    manager = ConnectionManager()
    first = await manager.connect("helper", command=command, args=args, cwd=tmp_path)
    again = await manager.connect("helper", command=command, args=args, cwd=tmp_path)
    other = await manager.connect("other", command=other_agent[0], args=other_agent[1:], cwd=tmp_path)
    assert first is again and manager.get("helper") is first and other is not first
    assert sorted(manager.names()) == ["helper", "other"]
    sid = (await first.new_session(tmp_path)).session_id
    assert (await first.prompt(sid, "echo hi")).text == "hi"
    pids = [c.process.pid for c in (first, other) if c.process is not None]
    await manager.disconnect("other")
    assert _gone(pids[1]) and not _gone(pids[0])
    with pytest.raises(KeyError):
        manager.get("other")
    await manager.dispose_all()
    assert all(_gone(pid) for pid in pids)
    assert manager.names() == []


async def test_manager_replaces_a_dead_connection(tmp_path: Path) -> None:
    # Two agents to spawn, one after the other (each relay command reaches one agent).
    async with agent_in_process() as one, agent_in_process() as two, ConnectionManager() as manager:
        first = await manager.connect("helper", command=one[0], args=one[1:], cwd=tmp_path)
        assert first.process is not None
        first.process.kill()
        await first.process.wait()
        second = await manager.connect("helper", command=two[0], args=two[1:], cwd=tmp_path)
        assert second is not first and second.running
        sid = (await second.new_session(tmp_path)).session_id
        assert (await second.prompt(sid, "echo again")).text == "again"


async def test_acceptance_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example of the issue, as written, with the scripted agent in ``my_agent.py``."""
    tmp = tmp_path / "project"
    tmp.mkdir()
    (tmp / "my_agent.py").write_text(f"from {SCRIPTED} import agent\n")
    monkeypatch.setenv("LANGACP_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp)  # the tool's agent command names my_agent.py relative to the cwd
    notes = []
    # -- the example, as written (`...` filled in) --
    rec = RecordingHandler(tmp_path / "activity.jsonl")  # wraps the default local handler
    async with AcpConnection(
        handler=rec, permission_policy=PermissionPolicy(allow=["read"], deny=["delete"], ask_else="reject")
    ) as conn:
        await conn.spawn("langacp", ["serve", "my_agent.py:agent"], cwd=tmp)
        init = await conn.initialize()  # InitializeResponse
        info = await conn.new_session(tmp)  # .session_id, .modes, .config_options
        result = await conn.prompt(info.session_id, "Say hello")  # .stop_reason, .text (the whole answer)
        async for note in conn.stream_prompt(info.session_id, "Write notes.txt"):
            notes.append(note)  # SessionNotification objects as they arrive
        await conn.cancel(info.session_id)
    manager = ConnectionManager()
    await manager.connect("helper", command="langacp", args=["serve", "my_agent.py:agent"], cwd=tmp)
    manager.get("helper")
    await manager.dispose_all()
    tool = acp_agent_tool("helper", command=["langacp", "serve", "my_agent.py:agent"], description="...")
    # -- end of the example --
    assert init.protocol_version == 1 and info.session_id
    assert (result.stop_reason, result.text) == ("end_turn", "You said: Say hello")
    assert all(isinstance(n, SessionNotification) and n.session_id == info.session_id for n in notes)
    assert "".join(n.update.content.text for n in notes) == "You said: Write notes.txt"
    assert conn.process is not None and _gone(conn.process.pid)
    assert [e["type"] for e in load_activity(tmp_path / "activity.jsonl")].count("message:complete") == 2
    assert manager.names() == []
    try:
        assert await tool.ainvoke({"prompt": "echo from the tool"}) == "from the tool"
    finally:
        await tool.aclose()


async def test_fast_notification_equals_a_validated_one() -> None:
    from acp.helpers import update_agent_message_text
    from acp.schema import SessionNotification

    from langacp.client.router import notification

    update = update_agent_message_text("hi")
    for meta in (None, {"k": 1}):
        fast = notification("s1", update, meta)
        checked = SessionNotification(session_id="s1", update=update, field_meta=meta)
        assert fast == checked and repr(fast) == repr(checked)
        assert fast.model_dump(by_alias=True) == checked.model_dump(by_alias=True)
        assert fast.model_fields_set == checked.model_fields_set


async def test_agent_dying_mid_turn_fails_the_prompt_with_its_stderr(tmp_path: Path) -> None:
    async with agent_in_process() as command, AcpConnection() as conn:
        await conn.spawn(command[0], command[1:], cwd=tmp_path)
        await conn.initialize()
        sid = (await conn.new_session(tmp_path)).session_id
        started = asyncio.Event()
        conn.add_listener(lambda note: started.set() if note.update.session_update == "tool_call" else None, sid)
        turn = asyncio.ensure_future(conn.prompt(sid, "slow 30"))
        await asyncio.wait_for(started.wait(), 20)
        assert conn.process is not None
        os.killpg(conn.process.pid, 9)
        with pytest.raises(AgentExited) as caught:
            await asyncio.wait_for(turn, 20)
        assert caught.value.returncode == -9 and not conn.running


async def test_a_failing_permission_callback_answers_cancelled(asking: AcpConnection, tmp_path: Path) -> None:
    def broken(request: PermissionRequest) -> str:
        raise RuntimeError("the callback broke")

    policy = PermissionPolicy(ask_else=broken)
    sid = await _session(asking, tmp_path, policy=policy)
    result = await asking.prompt(sid, 'tool add {"a": 1, "b": 2}')
    assert result.stop_reason in ("end_turn", "cancelled") and "done: 3" not in result.text
    assert (await asking.prompt(sid, "echo still serving")).text == "still serving"
    assert [(d.decision, d.source) for d in policy.decisions] == [("cancelled", "error")]


async def test_an_agent_that_never_answers_is_not_ready(tmp_path: Path) -> None:
    from langacp.client import AgentNotReady

    # It reads its stdin without ever answering, and ends when the connection closes it.
    script = "import sys; print('starting up…', file=sys.stderr, flush=True); sys.stdin.read()"
    manager = ConnectionManager()
    with pytest.raises(AgentNotReady) as caught:
        await manager.connect("mute", command=sys.executable, args=["-c", script], startup_timeout=1.5)
    assert "did not answer initialize within 1.5 s" in str(caught.value)
    assert "starting up…" in str(caught.value)
    assert manager.names() == []  # closed, not kept


async def test_local_handler_confines_files_to_the_session(tmp_path: Path) -> None:
    from acp import RequestError

    from langacp.client import LocalHandler

    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "out").symlink_to(outside)
    os.mkfifo(root / "fifo")
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    handler = LocalHandler()
    handler.add_session("s", str(root))
    assert (await handler.read_text_file("s", str(root / "a.txt"), line=2, limit=1)).content == "two\n"
    await handler.write_text_file("s", str(root / "new" / "b.txt"), "bee")
    assert (root / "new" / "b.txt").read_text() == "bee"
    await handler.write_text_file("s", str(root / "a.txt"), "short")
    assert (root / "a.txt").read_text() == "short"  # truncated, not overwritten in place
    for path in ("link.txt", "out/secret.txt", "../outside/secret.txt", "fifo"):
        with pytest.raises(RequestError) as caught:
            await asyncio.wait_for(handler.read_text_file("s", str(root / path)), 5)
        assert caught.value.code == -32602, path
    for path in ("link.txt", "out/new.txt", "fifo"):
        with pytest.raises(RequestError):
            await asyncio.wait_for(handler.write_text_file("s", str(root / path), "x"), 5)
    assert (outside / "secret.txt").read_text() == "secret" and not (outside / "new.txt").exists()
    with pytest.raises(RequestError):  # another session's directory is not this one's
        await handler.read_text_file("other", str(root / "a.txt"))
    with pytest.raises(RequestError):
        await handler.read_text_file("s", "relative.txt")


NEW_LOOP_SCRIPT = """
import asyncio, json, sys
from langacp.client import ConnectionManager

command, args, cwd = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
manager = ConnectionManager()

async def use():
    conn = await manager.connect("helper", command=command, args=args, cwd=cwd)
    sid = (await conn.new_session(cwd)).session_id
    return conn.process.pid, (await conn.prompt(sid, "echo hi")).text

first = asyncio.run(use())  # this loop ends and leaves the agent behind
second = asyncio.run(use())  # a new loop: the old agent is ended and replaced
print(json.dumps([first, second]), flush=True)
manager.kill_all()
"""


async def test_manager_survives_a_new_event_loop(tmp_path: Path) -> None:
    import json
    import subprocess

    command, args = _spawn_args()
    env = agent_env(extra={"XDG_DATA_HOME": str(tmp_path / "data")})
    run = [sys.executable, "-c", NEW_LOOP_SCRIPT, command, json.dumps(args), str(tmp_path)]
    result = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    (first_pid, first), (second_pid, second) = json.loads(result.stdout.splitlines()[-1])
    assert first == second == "hi" and first_pid != second_pid
    await eventually(lambda: _gone(first_pid) and _gone(second_pid))  # their process groups are empty
