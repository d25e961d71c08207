"""``langacp serve --remote`` against a real ``langgraph dev`` server, over real pipes.

Sessions are the server's threads, so a second ``langacp`` process sees and loads them.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from acp import RequestError, text_block
from langgraph_sdk import get_client

from langacp_remote.store import ThreadStore
from langacp_remote.testing import LangGraphDevServer, serve_remote


async def test_remote_streams_text_and_tool_calls(langgraph_server: LangGraphDevServer) -> None:
    async with serve_remote(langgraph_server.url, "agent") as agent:
        init = await agent.initialize()
        assert init.agent_capabilities is not None and init.agent_capabilities.load_session
        sid = await agent.new_session()
        assert await agent.prompt(sid, "echo hello remote world") == "end_turn"
        assert agent.client.text(sid) == "hello remote world"
        assert len(agent.client.of(sid, "agent_message_chunk")) >= 1

        assert await agent.prompt(sid, "think aloud") == "end_turn"
        assert agent.client.text(sid, "agent_thought_chunk") == "Let me think about that."
        assert agent.client.text(sid).endswith("aloud")

        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        starts = agent.client.of(sid, "tool_call")
        assert [s.title for s in starts] == ["add"]
        finals = [u for u in agent.client.of(sid, "tool_call_update") if u.status is not None]
        assert finals[-1].status == "completed"
        assert finals[-1].raw_output == "3"
        assert agent.client.text(sid).endswith("done: 3")

    # The session is a thread of the server, tagged with what langacp knows about it.
    threads = await get_client(url=langgraph_server.url).threads.search(metadata={"langacp_session_id": sid})
    assert len(threads) == 1
    metadata = threads[0]["metadata"]
    assert metadata["cwd"] == str(agent.cwd)
    assert metadata["langacp_version"]


async def test_remote_sessions_are_shared_by_processes(langgraph_server: LangGraphDevServer, tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    async with serve_remote(langgraph_server.url, "agent", cwd=cwd) as first:
        await first.initialize()
        sid = await first.new_session()
        assert await first.prompt(sid, "echo first words") == "end_turn"
        other = await first.new_session()

        async with serve_remote(langgraph_server.url, "agent", cwd=cwd) as second:
            await second.initialize()
            listed = await second.conn.list_sessions(cwd=str(cwd))
            assert {s.session_id for s in listed.sessions} == {sid, other}
            assert all(s.cwd == str(cwd) for s in listed.sessions)

            # load in the other process: the thread's messages are replayed through the bridge
            await second.conn.load_session(cwd=str(cwd), session_id=sid)
            replayed = second.client.of(sid)
            kinds = [u.session_update for u in replayed]
            assert kinds[:2] == ["user_message_chunk", "agent_message_chunk"]
            assert second.client.text(sid) == "first words"
            second.client.updates.clear()
            assert await second.prompt(sid, "history") == "end_turn"
            assert second.client.text(sid) == "echo first words | history"

            # fork: a new thread holding a copy; the two diverge
            forked = await second.conn.fork_session(cwd=str(cwd), session_id=sid)
            assert forked.session_id != sid
            assert await second.prompt(forked.session_id, "echo only in the fork") == "end_turn"
            second.client.updates.clear()
            assert await second.prompt(forked.session_id, "history") == "end_turn"
            expected = "echo first words | history | echo only in the fork | history"
            assert second.client.text(forked.session_id) == expected

        # the first process sees what the second one added to the shared session
        first.client.updates.clear()
        assert await first.prompt(sid, "history") == "end_turn"
        assert first.client.text(sid) == "echo first words | history | history"
        listed = await first.conn.list_sessions(cwd=str(cwd))
        assert len(listed.sessions) == 3


async def test_remote_cancel_stops_the_run_and_the_thread_stays_usable(langgraph_server: LangGraphDevServer) -> None:
    async with serve_remote(langgraph_server.url, "agent") as agent:
        sid = await agent.start()
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("slow 30")]))
        await agent.client.wait_for(lambda _: bool(agent.client.of(sid, "tool_call")), timeout=30)
        started = time.monotonic()
        await agent.conn.cancel(session_id=sid)
        response = await asyncio.wait_for(turn, 10)
        elapsed = time.monotonic() - started
        assert response.stop_reason == "cancelled"
        assert elapsed < 5, elapsed  # not the tool's 30 s (the benchmark measures the real latency)
        finals = [u for u in agent.client.of(sid, "tool_call_update") if u.status is not None]
        assert finals[-1].status == "failed"

        # the thread is idle again: the next prompt runs, and the model saw the cancelled call answered
        agent.client.updates.clear()
        assert await agent.prompt(sid, "dangling") == "end_turn"
        assert agent.client.text(sid) == "dangling: 0"


async def test_remote_busy_thread_is_refused_clearly(langgraph_server: LangGraphDevServer, tmp_path: Path) -> None:
    async with serve_remote(langgraph_server.url, "agent", cwd=tmp_path) as first:
        sid = await first.start()
        turn = asyncio.ensure_future(first.conn.prompt(session_id=sid, prompt=[text_block("slow 30")]))
        await first.client.wait_for(lambda _: bool(first.client.of(sid, "tool_call")), timeout=30)
        async with serve_remote(langgraph_server.url, "agent", cwd=tmp_path) as second:
            await second.initialize()
            await second.conn.load_session(cwd=str(tmp_path), session_id=sid)
            with pytest.raises(RequestError) as caught:
                await second.prompt(sid, "echo me too")
            assert "another prompt is running" in str(caught.value.data)
            # the second process keeps serving
            assert await second.prompt(await second.new_session(), "echo still here") == "end_turn"
        await first.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 10)).stop_reason == "cancelled"


async def test_remote_list_pages_through_threads_newest_first(
    langgraph_server: LangGraphDevServer, tmp_path: Path
) -> None:
    async with serve_remote(langgraph_server.url, "agent", cwd=tmp_path) as agent:
        await agent.initialize()
        created = [await agent.new_session() for _ in range(5)]
        with pytest.raises(RequestError) as caught:
            await agent.conn.list_sessions(cwd=str(tmp_path), cursor="not-a-cursor")
        assert caught.value.code == -32602

    # the store the driver serves from, on the same server, in pages of two
    store = ThreadStore(
        get_client(url=langgraph_server.url), langgraph_server.url, await _assistant_id(langgraph_server)
    )
    pages, cursor = [], None
    while True:
        records, cursor = await store.list(cwd=str(tmp_path), cursor=cursor, limit=2)
        pages.append([r.session_id for r in records])
        if cursor is None:
            break
    assert [len(page) for page in pages] == [2, 2, 1]
    assert [sid for page in pages for sid in page] == list(reversed(created))  # newest first


async def _assistant_id(server: LangGraphDevServer) -> str:
    [assistant] = await get_client(url=server.url).assistants.search(graph_id="agent")
    return str(assistant["assistant_id"])
