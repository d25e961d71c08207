"""Checkpoints kept linear in the conversation on PostgreSQL: each thread keeps its latest, old data compacts."""

from __future__ import annotations

import asyncio
import sys

import psycopg

from langacp.testing.harness import serve


def counts(url: str, thread: str) -> tuple[int, int]:
    """The thread's checkpoints and its blobs of the messages channel."""
    with psycopg.connect(url, autocommit=True) as conn:
        (checkpoints,) = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread,)).fetchone()
        (blobs,) = conn.execute(
            "SELECT count(*) FROM checkpoint_blobs WHERE thread_id = %s AND channel = 'messages'", (thread,)
        ).fetchone()
    return int(checkpoints), int(blobs)


async def pruned(url: str, thread: str) -> None:
    """The thread is down to its latest checkpoints (the prune runs beside the run: wait up to 10 s)."""
    for _ in range(200):
        checkpoints, blobs = counts(url, thread)
        if checkpoints <= 2 and blobs <= 2:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"thread {thread}: {checkpoints} checkpoints, {blobs} messages blobs")


async def test_a_long_session_keeps_its_latest_checkpoint_and_loads_its_whole_history(postgres_url: str) -> None:
    args = ["--store", postgres_url]
    async with serve(args=args) as agent:
        sid = await agent.start()
        for i in range(6):
            assert await agent.prompt(sid, f'tool add {{"a": {i}, "b": 1}}') == "end_turn"
            await pruned(postgres_url, sid)  # without pruning: ~5 more of each per turn
    async with serve(args=args) as again:
        await again.initialize()
        await again.conn.load_session(cwd="/", session_id=sid, mcp_servers=[])
        calls = [u for u in again.client.of(sid, "tool_call") if u.status == "completed"]
        assert [c.raw_output for c in calls] == [str(i + 1) for i in range(6)]


async def test_compact_keeps_the_latest_checkpoint_of_an_old_thread(postgres_url: str) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    from langacp.testing.agent import TOOLS, make_model

    async with AsyncPostgresSaver.from_conn_string(postgres_url) as saver:
        await saver.setup()
        graph = create_agent(make_model(), tools=TOOLS, checkpointer=saver)
        config = {"configurable": {"thread_id": "old"}}
        for i in range(12):
            await graph.aupdate_state(
                config, {"messages": [HumanMessage(f"q{i}"), AIMessage(f"a{i}")]}, as_node="model"
            )
        before = await saver.aget_tuple(config)
    assert counts(postgres_url, "old")[0] == 12
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "langacp.cli", "sessions", "compact", "--store", postgres_url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    assert "11 old checkpoints deleted" in out.decode()
    assert counts(postgres_url, "old") == (1, 1)
    async with AsyncPostgresSaver.from_conn_string(postgres_url) as saver:
        after = await saver.aget_tuple({"configurable": {"thread_id": "old"}})
    assert before is not None and after is not None
    assert after.checkpoint["channel_values"]["messages"] == before.checkpoint["channel_values"]["messages"]


async def test_the_saves_of_a_turn_cost_one_prune_and_drain_runs_it(postgres_url: str) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage

    from langacp.testing.agent import TOOLS, make_model
    from langacp_postgres.checkpoints import PruningSaver

    pruned_threads: list[list[str]] = []

    class Counting(PruningSaver):
        async def aprune(self, thread_ids, *, strategy="keep_latest"):  # type: ignore[no-untyped-def]
            pruned_threads.append(list(thread_ids))
            await super().aprune(thread_ids, strategy=strategy)

    async with Counting.from_conn_string(postgres_url) as saver:
        await saver.setup()
        saver.quiet = saver.patience = 3600.0  # the thread never goes quiet before drain()
        graph = create_agent(make_model(), tools=TOOLS, checkpointer=saver)
        config = {"configurable": {"thread_id": "busy"}}
        for i in range(5):
            await graph.aupdate_state(
                config, {"messages": [HumanMessage(f"q{i}"), AIMessage(f"a{i}")]}, as_node="model"
            )
        latest = await saver.aget_tuple(config)
        assert counts(postgres_url, "busy")[0] == 5  # nothing pruned while the thread is busy
        assert pruned_threads == []
        await saver.drain()  # what a closing store does: prune what waits, once
        assert pruned_threads == [["busy"]]
        assert counts(postgres_url, "busy") == (1, 1)
        after = await saver.aget_tuple(config)
        assert latest is not None and after is not None
        assert after.checkpoint == latest.checkpoint
        saver.quiet = saver.patience = 0.0  # every save is due at once: still one prune per thread at a time
        await graph.aupdate_state(config, {"messages": [HumanMessage("q"), AIMessage("a")]}, as_node="model")
        await saver.drain()
        assert counts(postgres_url, "busy") == (1, 1)
        assert pruned_threads == [["busy"], ["busy"]]


async def test_saves_during_a_prune_get_one_follow_up_prune(postgres_url: str) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage

    from langacp.testing.agent import TOOLS, make_model
    from langacp_postgres.checkpoints import PruningSaver

    started: list[str] = []
    gate = asyncio.Event()

    class Held(PruningSaver):
        async def aprune(self, thread_ids, *, strategy="keep_latest"):  # type: ignore[no-untyped-def]
            started.append(thread_ids[0])
            await gate.wait()  # the first prune is still running while the next saves come
            await super().aprune(thread_ids, strategy=strategy)

    async with Held.from_conn_string(postgres_url) as saver:
        await saver.setup()
        saver.quiet = saver.patience = 0.0
        graph = create_agent(make_model(), tools=TOOLS, checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}

        async def save(i: int) -> None:
            await graph.aupdate_state(
                config, {"messages": [HumanMessage(f"q{i}"), AIMessage(f"a{i}")]}, as_node="model"
            )
            for _ in range(5):
                await asyncio.sleep(0)  # a due timer fires on the loop's next rounds

        for i in range(2):
            await save(i)
        assert started == ["t"]  # one prune under way
        for i in range(2, 5):
            await save(i)
        assert started == ["t"]  # still one at a time: the saves meanwhile wait for it
        gate.set()
        await saver.drain()
        assert started == ["t", "t"]  # and are pruned by one follow-up, not one each
        assert counts(postgres_url, "t") == (1, 1)
