"""Checkpoints kept linear in the conversation: each thread keeps its latest checkpoints, old files compact.

Driven over real pipes against real SQLite files; the compaction runs ``langacp sessions compact``
as a subprocess.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

from langacp.testing.harness import serve


def checkpoints(db: Path, thread: str) -> int:
    with sqlite3.connect(db) as conn:
        (n,) = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ?", (thread,)).fetchone()
    return int(n)


def test_langgraph_tables_have_the_layout_the_pruning_assumes(tmp_path: Path) -> None:
    """Pins ``AsyncSqliteSaver``'s table layout that :mod:`langacp_sqlite.checkpoints` writes to."""
    from langacp_sqlite.checkpoints import PruningSaver

    async def go() -> None:
        async with PruningSaver.from_conn_string(str(tmp_path / "x.db")) as saver:
            await saver.setup()

    asyncio.run(go())
    with sqlite3.connect(tmp_path / "x.db") as conn:
        columns = {t: {r[1] for r in conn.execute(f"PRAGMA table_info({t})")} for t in ("checkpoints", "writes")}
    assert {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "metadata"} <= columns["checkpoints"]
    assert {"thread_id", "checkpoint_ns", "checkpoint_id", "channel"} <= columns["writes"]


async def test_a_long_session_keeps_two_checkpoints_and_loads_its_whole_history(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    async with serve(args=["--store", f"sqlite://{db}"]) as agent:
        sid = await agent.start()
        for i in range(8):
            assert await agent.prompt(sid, f'tool add {{"a": {i}, "b": 1}}') == "end_turn"
            assert checkpoints(db, sid) <= 2  # without pruning: ~5 more per turn
    async with serve(args=["--store", f"sqlite://{db}"]) as again:
        await again.initialize()
        await again.conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        calls = [u for u in again.client.of(sid, "tool_call") if u.status == "completed"]
        assert [c.raw_output for c in calls] == [str(i + 1) for i in range(8)]
        again.client.updates.clear()
        assert await again.prompt(sid, "history") == "end_turn"
        assert again.client.text(sid).count("tool add") == 8


async def test_compact_shrinks_an_old_database_and_its_sessions_still_load(tmp_path: Path) -> None:
    """A file written without pruning (LangGraph's own saver) keeps loading, and compacts to its latest checkpoints."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from langacp.stores import SessionRecord, open_store
    from langacp.testing.agent import TOOLS, make_model

    db = tmp_path / "old.db"
    url = f"sqlite://{db}"
    store = open_store(url)
    await store.aopen()  # type: ignore[attr-defined]
    await store.put(SessionRecord(session_id="old", cwd=str(tmp_path), title="old"))
    await store.aclose()
    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        graph = create_agent(make_model(), tools=TOOLS, checkpointer=saver)
        config = {"configurable": {"thread_id": "old"}}
        for i in range(30):  # one checkpoint per update, each holding the whole history
            call = {"name": "add", "args": {"a": i, "b": 1}, "id": f"c{i}", "type": "tool_call"}
            await graph.aupdate_state(
                config,
                {
                    "messages": [
                        HumanMessage(f"question {i} " + "x" * 2000),
                        AIMessage("", tool_calls=[call]),
                        ToolMessage(str(i + 1), tool_call_id=f"c{i}", name="add"),
                        AIMessage(f"done: {i + 1}"),
                    ]
                },
                as_node="model",
            )
    assert checkpoints(db, "old") == 30
    before = db.stat().st_size
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "langacp.cli", "sessions", "compact", "--store", url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    assert "29 old checkpoints deleted" in out.decode()
    assert checkpoints(db, "old") == 1
    assert db.stat().st_size < before / 5
    async with serve(args=["--store", url]) as agent:
        await agent.initialize()
        await agent.conn.load_session(cwd=str(tmp_path), session_id="old", mcp_servers=[])
        assert [c.raw_output for c in agent.client.of("old", "tool_call")] == [str(i + 1) for i in range(30)]
        assert await agent.prompt("old", 'tool add {"a": 1, "b": 1}') == "end_turn"
        assert checkpoints(db, "old") <= 2


def test_compact_on_the_memory_store_says_there_is_nothing_to_do() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "sessions", "compact", "--store", "memory"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "nothing to compact" in done.stdout
