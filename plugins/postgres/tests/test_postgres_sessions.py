"""Agents in separate processes sharing sessions through one PostgreSQL database, over real pipes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from langacp.testing.harness import serve


async def test_a_session_created_by_one_agent_process_loads_in_another(postgres_url: str, tmp_path: Path) -> None:
    args = ["--store", postgres_url]
    async with serve(args=args) as first:
        caps = (await first.initialize()).agent_capabilities
        assert caps is not None and caps.load_session is True
        sid = await first.new_session()
        assert await first.prompt(sid, "think it over") == "end_turn"
        assert await first.prompt(sid, 'tool add {"a": 20, "b": 22}') == "end_turn"
    async with serve(args=args) as second:
        await second.initialize()
        listed = (await second.conn.list_sessions()).sessions
        assert [s.session_id for s in listed] == [sid]
        await second.conn.load_session(cwd=str(tmp_path), session_id=sid)
        users = [u.content.text for u in second.client.of(sid, "user_message_chunk")]
        assert users == ["think it over", 'tool add {"a": 20, "b": 22}']
        assert second.client.text(sid, "agent_thought_chunk") == "Let me think about that."
        [call] = second.client.of(sid, "tool_call")
        assert call.status == "completed" and call.raw_input == {"a": 20, "b": 22}
        second.client.updates.clear()
        await second.prompt(sid, "history")
        assert second.client.text(sid) == 'think it over | tool add {"a": 20, "b": 22} | history'


async def test_two_agent_processes_work_on_one_database_at_the_same_time(postgres_url: str, tmp_path: Path) -> None:
    args = ["--store", postgres_url]
    env = {"LANGACP_TEST_TOKEN_DELAY": "0.001"}
    async with serve(args=args, env=env) as one, serve(args=args, env=env) as two:
        await asyncio.gather(one.initialize(), two.initialize())  # both create the tables at once
        a, b = await asyncio.gather(one.new_session(), two.new_session())
        assert await asyncio.gather(one.prompt(a, "long 200"), two.prompt(b, "long 200")) == ["end_turn"] * 2
        fork = (await two.conn.fork_session(session_id=a, cwd=str(tmp_path))).session_id  # a is live in `one`
        await two.prompt(fork, "history")
        assert two.client.text(fork).endswith("long 200 | history")
        assert {s.session_id for s in (await one.conn.list_sessions()).sessions} == {a, b, fork}


async def test_kill_9_mid_tool_then_load_on_another_process(postgres_url: str, tmp_path: Path) -> None:
    args = ["--store", postgres_url]
    async with serve(args=args) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo done before")
        turn = asyncio.create_task(agent.prompt(sid, "slow 30"))
        await agent.client.wait_for(lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups))
        await asyncio.sleep(0.3)
        agent.process.kill()  # type: ignore[attr-defined]
        await agent.process.wait()  # type: ignore[attr-defined]
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)
    async with serve(args=args) as other:
        await other.initialize()
        await other.conn.load_session(cwd=str(tmp_path), session_id=sid)
        [call] = other.client.of(sid, "tool_call")
        assert call.status == "failed"
        other.client.updates.clear()
        await other.prompt(sid, "dangling")
        assert other.client.text(sid) == "dangling: 0"


async def test_an_unreachable_database_fails_session_methods_clearly_and_initialize_still_answers() -> None:
    import pytest
    from acp import RequestError

    async with serve(args=["--store", "postgresql://agent:hunter2@127.0.0.1:1/langacp"]) as agent:
        caps = (await agent.initialize()).agent_capabilities
        assert caps is not None and caps.load_session is True
        with pytest.raises(RequestError) as err:
            await agent.new_session()
        assert err.value.code == -32603
        details = str(err.value.data)
        assert "cannot use the PostgreSQL session database" in details and "127.0.0.1" in details
        assert "hunter2" not in details and "hunter2" not in agent.stderr()
