"""Sessions stored in SQLite, driven over real pipes: load / resume / list / fork / close across processes."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from langacp.testing.harness import ServedAgent, serve


def kinds(agent: ServedAgent, sid: str) -> list[str]:
    return [u.session_update for u in agent.client.of(sid)]


def user_texts(agent: ServedAgent, sid: str) -> list[str]:
    return [u.content.text for u in agent.client.of(sid, "user_message_chunk")]


def tool_calls(agent: ServedAgent, sid: str) -> list[Any]:
    return agent.client.of(sid, "tool_call")


async def loaded(agent: ServedAgent, sid: str, cwd: Path) -> None:
    await agent.initialize()
    await agent.conn.load_session(cwd=str(cwd), session_id=sid, mcp_servers=[])


async def test_initialize_offers_load_and_the_default_store_is_a_file_in_the_data_dir(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    async with serve(env=env) as agent:  # no --store: sqlite is installed, so it is the default
        caps = (await agent.initialize()).agent_capabilities
        assert caps is not None and caps.load_session is True
        assert caps.session_capabilities is not None and caps.session_capabilities.fork is not None
        sid = await agent.new_session()
        assert await agent.prompt(sid, "echo remembered") == "end_turn"
    assert (tmp_path / "xdg" / "langacp" / "sessions.db").is_file()
    async with serve(env=env) as agent:
        await loaded(agent, sid, tmp_path)
        assert user_texts(agent, sid) == ["echo remembered"]
        assert agent.client.text(sid) == "remembered"


async def test_memory_store_does_not_offer_load(tmp_path: Path) -> None:
    async with serve(args=["--store", "memory"]) as agent:
        caps = (await agent.initialize()).agent_capabilities
        assert caps is not None and caps.load_session is False


async def test_load_in_a_new_process_replays_the_whole_history_before_answering(store_url: str, tmp_path: Path) -> None:
    async with serve(args=["--store", store_url]) as first:
        sid = await first.start()
        assert await first.prompt(sid, "think hard") == "end_turn"
        assert await first.prompt(sid, 'tool add {"a": 2, "b": 3}') == "end_turn"
        assert await first.prompt(sid, "fail kaput") == "end_turn"
        live = [(u.session_update, getattr(u, "status", None)) for u in first.client.of(sid)]
    async with serve(args=["--store", store_url]) as second:
        await loaded(second, sid, tmp_path)
        # Everything arrived before the load response.
        assert user_texts(second, sid) == ["think hard", 'tool add {"a": 2, "b": 3}', "fail kaput"]
        assert second.client.text(sid, "agent_thought_chunk") == "Let me think about that."
        assert second.client.text(sid) == "harddone: 5done: Error: ValueError: kaput"
        add, fail = tool_calls(second, sid)
        assert (add.title, add.status, add.raw_input, add.raw_output) == ("add", "completed", {"a": 2, "b": 3}, "5")
        assert [c.content.text for c in add.content] == ["5"]
        assert fail.status == "failed" and "kaput" in fail.content[0].content.text
        order = [k for k in kinds(second, sid) if k != "available_commands_update"]
        assert order[:3] == ["user_message_chunk", "agent_thought_chunk", "agent_message_chunk"]
        assert ("tool_call_update", "completed") in live  # live it was a start then an update; replayed, one final call
        # The model remembers the same conversation.
        second.client.updates.clear()
        assert await second.prompt(sid, "history") == "end_turn"
        assert second.client.text(sid) == 'think hard | tool add {"a": 2, "b": 3} | fail kaput | history'


async def test_unknown_session_is_not_found_and_no_session_is_created(store_url: str, tmp_path: Path) -> None:
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        for call in (agent.conn.load_session, agent.conn.resume_session):
            with pytest.raises(RequestError) as err:
                await call(cwd=str(tmp_path), session_id="no-such-session")
            assert err.value.code == -32002
        assert (await agent.conn.list_sessions()).sessions == []
        with pytest.raises(RequestError) as err:
            await agent.prompt("no-such-session", "echo hi")
        assert err.value.code == -32002


async def test_resume_restores_without_replay(store_url: str, tmp_path: Path) -> None:
    async with serve(args=["--store", store_url]) as first:
        sid = await first.start()
        await first.prompt(sid, "echo before")
    async with serve(args=["--store", store_url]) as second:
        await second.initialize()
        await second.conn.resume_session(cwd=str(tmp_path), session_id=sid)
        assert [k for k in kinds(second, sid) if k != "available_commands_update"] == []
        await second.prompt(sid, "history")
        assert second.client.text(sid) == "echo before | history"


async def test_list_filters_by_cwd_newest_first_with_times(store_url: str, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        first = await agent.new_session(str(a))
        second = await agent.new_session(str(b))
        third = await agent.new_session(str(a))
        await agent.prompt(third, "echo third")
        await agent.prompt(first, "echo first, most recent")
    async with serve(args=["--store", store_url]) as other:
        await other.initialize()
        listed = (await other.conn.list_sessions()).sessions
        assert [s.session_id for s in listed] == [first, third, second]
        assert all(s.updated_at and s.updated_at.endswith("Z") for s in listed)
        assert listed[0].updated_at >= listed[1].updated_at >= listed[2].updated_at  # type: ignore[operator]
        only_a = (await other.conn.list_sessions(cwd=str(a))).sessions
        assert [(s.session_id, s.cwd) for s in only_a] == [(first, str(a)), (third, str(a))]
        with pytest.raises(RequestError) as err:
            await other.conn.list_sessions(cursor="garbage")
        assert err.value.code == -32602


async def test_close_frees_the_session_and_keeps_it_stored(store_url: str, tmp_path: Path) -> None:
    async with serve(args=["--store", store_url]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo kept")
        await agent.conn.close_session(session_id=sid)
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "echo gone")
        assert err.value.code == -32002
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert agent.client.text(sid) == "kept"


async def test_fork_is_stored_and_loads_in_another_process(store_url: str, tmp_path: Path) -> None:
    async with serve(args=["--store", store_url]) as first:
        sid = await first.start()
        await first.prompt(sid, "echo shared")
        fork = (await first.conn.fork_session(session_id=sid, cwd=str(tmp_path))).session_id
        await first.prompt(fork, "echo fork only")
    async with serve(args=["--store", store_url]) as second:
        await second.initialize()
        await second.conn.load_session(cwd=str(tmp_path), session_id=fork)
        assert user_texts(second, fork) == ["echo shared", "echo fork only"]
        await second.conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert user_texts(second, sid) == ["echo shared"]
        # A stored session that is not live can be forked too.
        again = (await second.conn.fork_session(session_id=fork, cwd=str(tmp_path))).session_id
        await second.prompt(again, "history")
        assert second.client.text(again).endswith("echo shared | echo fork only | history")


async def test_a_corrupt_record_is_a_clear_error_and_is_not_overwritten(store_url: str, tmp_path: Path) -> None:
    async with serve(args=["--store", store_url]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo precious")
    path = store_url.removeprefix("sqlite://")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE langacp_sessions SET record = '[1, 2' WHERE session_id = ?", (sid,))
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        with pytest.raises(RequestError) as err:
            await agent.conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert err.value.code == -32603 and "cannot be read" in str(err.value.data)
        with pytest.raises(RequestError):
            await agent.conn.fork_session(session_id=sid, cwd=str(tmp_path))
        await agent.prompt(await agent.new_session(), "echo still serving")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT record FROM langacp_sessions WHERE session_id = ?", (sid,)).fetchone() == ("[1, 2",)
        threads = db.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ?", (sid,)).fetchone()
        assert threads[0] > 0


async def kill_during(store_url: str, prompt: str, started: Any, env: dict[str, str] | None = None) -> str:
    """Run one complete turn, start ``prompt`` and kill -9 the agent once ``started(updates)`` holds."""
    async with serve(args=["--store", store_url], env=env) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "echo completed turn") == "end_turn"
        turn = asyncio.create_task(agent.prompt(sid, prompt))
        await agent.client.wait_for(started, timeout=30)
        await asyncio.sleep(0.3)
        agent.process.kill()  # type: ignore[attr-defined]
        await agent.process.wait()  # type: ignore[attr-defined]
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)
    return sid


async def test_kill_9_during_a_tool_loses_no_completed_turn_and_repairs_the_interrupted_one(
    store_url: str, tmp_path: Path
) -> None:
    sid = await kill_during(
        store_url, "slow 30", lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups)
    )
    async with serve(args=["--store", store_url]) as agent:
        await loaded(agent, sid, tmp_path)
        assert user_texts(agent, sid) == ["echo completed turn", "slow 30"]
        [call] = tool_calls(agent, sid)
        assert call.status == "failed" and "Interrupted" in call.content[0].content.text
        agent.client.updates.clear()
        assert await agent.prompt(sid, "dangling") == "end_turn"
        assert agent.client.text(sid) == "dangling: 0"  # no tool call left without a result
        agent.client.updates.clear()
        assert await agent.prompt(sid, "history") == "end_turn"
        assert agent.client.text(sid) == "echo completed turn | slow 30 | dangling | history"


async def test_kill_9_while_streaming_keeps_completed_turns_and_the_session_goes_on(
    store_url: str, tmp_path: Path
) -> None:
    chunks = lambda ups: sum(1 for _, u in ups if u.session_update == "agent_message_chunk") > 3  # noqa: E731
    sid = await kill_during(store_url, "long 5000", chunks, env={"LANGACP_TEST_TOKEN_DELAY": "0.005"})
    async with serve(args=["--store", store_url]) as agent:
        await loaded(agent, sid, tmp_path)
        assert user_texts(agent, sid)[0] == "echo completed turn"
        assert agent.client.text(sid).startswith("completed turn")
        agent.client.updates.clear()
        assert await agent.prompt(sid, "history") == "end_turn"
        assert agent.client.text(sid) == "echo completed turn | long 5000 | history"


async def test_two_agent_processes_share_one_database(store_url: str, tmp_path: Path) -> None:
    env = {"LANGACP_TEST_TOKEN_DELAY": "0.001"}
    async with serve(args=["--store", store_url], env=env) as one, serve(args=["--store", store_url], env=env) as two:
        try:
            a, b = await one.start(), await two.start()
        except RequestError as exc:  # seen once under load: say why in the failure
            raise AssertionError(f"{exc.data}\none:\n{one.stderr()[-4000:]}\ntwo:\n{two.stderr()[-4000:]}") from exc
        assert await asyncio.gather(one.prompt(a, "long 300"), two.prompt(b, "long 300")) == ["end_turn"] * 2
        await asyncio.gather(one.prompt(a, 'tool add {"a": 1, "b": 1}'), two.prompt(b, 'tool add {"a": 2, "b": 2}'))
        # Each sees the other's session.
        assert {s.session_id for s in (await one.conn.list_sessions()).sessions} == {a, b}
        one.client.updates.clear()
        # One process serves a session at a time: b is live in two, so one is refused, clearly...
        with pytest.raises(RequestError) as err:
            await one.conn.load_session(cwd=str(tmp_path), session_id=b)
        assert err.value.code == -32602 and "open in another langacp process" in str(err.value.data)
        # ... until two closes it.
        await two.conn.close_session(session_id=b)
        await one.conn.load_session(cwd=str(tmp_path), session_id=b)
        assert one.client.text(b).endswith("done: 4")


async def test_the_record_keeps_cwd_and_mcp_servers_without_secret_values(store_url: str) -> None:
    from acp.schema import EnvVariable, McpServerStdio

    server = McpServerStdio(name="files", command="/usr/bin/mcp-files", args=["--root", "/src"], env=[])
    server.env = [EnvVariable(name="API_TOKEN", value="s3cret-value")]
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])).session_id
        await agent.prompt(sid, "echo hello")
    path = store_url.removeprefix("sqlite://")
    with sqlite3.connect(path) as db:
        [(raw,)] = db.execute("SELECT record FROM langacp_sessions WHERE session_id = ?", (sid,)).fetchall()
    assert "s3cret-value" not in raw
    import json

    record = json.loads(raw)
    assert record["cwd"] == str(agent.cwd)
    [stored] = record["data"]["langacp"]["mcp_servers"]
    assert stored["name"] == "files" and stored["command"] == "/usr/bin/mcp-files" and stored["env"] == ["API_TOKEN"]


async def test_an_unreadable_conversation_is_a_clear_error_and_is_left_as_it_was(
    store_url: str, tmp_path: Path
) -> None:
    async with serve(args=["--store", store_url]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo precious")
    path = store_url.removeprefix("sqlite://")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE checkpoints SET checkpoint = X'C1C1C1' WHERE thread_id = ?", (sid,))
        before = db.execute("SELECT checkpoint_id, checkpoint FROM checkpoints ORDER BY checkpoint_id").fetchall()
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        with pytest.raises(RequestError) as err:
            await agent.conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert err.value.code == -32603 and "cannot be read" in str(err.value.data)
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "echo overwrite it")  # the failed load left no live session behind
        assert err.value.code == -32002
        assert await agent.prompt(await agent.new_session(), "echo still serving") == "end_turn"
    with sqlite3.connect(path) as db:
        after = db.execute("SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = ?", (sid,)).fetchall()
    assert set(after) <= set(before) and after


async def test_list_pages_with_an_opaque_cursor_over_the_protocol(store_url: str, tmp_path: Path) -> None:
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        created = [await agent.new_session(str(tmp_path)) for _ in range(53)]
        first = await agent.conn.list_sessions(cwd=str(tmp_path))
        assert len(first.sessions) == 50 and first.next_cursor
        second = await agent.conn.list_sessions(cwd=str(tmp_path), cursor=first.next_cursor)
        assert len(second.sessions) == 3 and second.next_cursor is None
        listed = [s.session_id for s in [*first.sessions, *second.sessions]]
        assert sorted(listed) == sorted(created) and len(set(listed)) == 53


async def test_a_factory_without_the_checkpointer_still_loads_and_resumes_empty(store_url: str, tmp_path: Path) -> None:
    target = tmp_path / "forgetful.py"
    target.write_text(
        "from langchain.agents import create_agent\n"
        "from langacp.testing.agent import make_model\n\n"
        "def agent(setup):\n"
        "    return create_agent(make_model(), tools=[], middleware=setup.middleware)\n"
    )
    async with serve(f"{target}:agent", args=["--store", store_url]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo forgotten")
        await agent.conn.close_session(session_id=sid)
        await agent.conn.resume_session(cwd=str(tmp_path), session_id=sid)
        await agent.conn.close_session(session_id=sid)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert agent.client.of(sid, "user_message_chunk") == []  # nothing was stored to replay
        assert await agent.prompt(sid, "echo still works") == "end_turn"
