"""The ``sqlite`` store prunes a thread in the transaction that saves its checkpoint, whatever its id holds.

Real SQLite files, LangGraph's own ``aput`` / ``aput_writes``; the rows are read back through a
second, plain ``sqlite3`` connection.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from langacp_sqlite.checkpoints import PruningSaver


async def save_chain(saver: Any, thread: str, n: int, ns: str = "", **metadata: Any) -> list[str]:
    """``n`` checkpoints of ``thread``, each on top of the last with one pending write; their ids."""
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ns}}
    ids = []
    for step in range(n):
        config = await saver.aput(config, empty_checkpoint(), {"step": step, **metadata}, {})
        await saver.aput_writes(config, [("messages", step)], task_id=f"task{step}")
        ids.append(config["configurable"]["checkpoint_id"])
    return ids


def rows(db: Path, table: str, thread: str, ns: str = "") -> list[str]:
    with sqlite3.connect(db) as conn:
        found = conn.execute(
            f"SELECT checkpoint_id FROM {table} WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id",
            (thread, ns),
        ).fetchall()
    return [row[0] for row in found]


async def test_a_thread_keeps_its_latest_two_checkpoints_and_their_writes(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with PruningSaver.from_conn_string(str(db)) as saver:
        ids = await save_chain(saver, "t", 6)
        sub = await save_chain(saver, "t", 4, ns="tools:1")  # a subgraph's namespace: pruned on its own
        other = await save_chain(saver, "u", 1)
    assert rows(db, "checkpoints", "t") == ids[-2:]
    assert rows(db, "writes", "t") == ids[-2:]
    assert rows(db, "checkpoints", "t", "tools:1") == sub[-2:]
    assert rows(db, "checkpoints", "u") == other
    async with AsyncSqliteSaver.from_conn_string(str(db)) as plain:  # the latest reads back whole
        latest = await plain.aget_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})
    assert latest is not None and latest.config["configurable"]["checkpoint_id"] == ids[-1]
    assert latest.parent_config is not None and latest.parent_config["configurable"]["checkpoint_id"] == ids[-2]
    assert [value for _, _, value in latest.pending_writes or []] == [5]


async def test_a_delta_channel_thread_keeps_its_history(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with PruningSaver.from_conn_string(str(db)) as saver:
        marked = await save_chain(saver, "delta", 5, counters_since_delta_snapshot={"messages": [1, 1]})
        first = await save_chain(saver, "first", 5, delta_writes_versioned=True)
    assert rows(db, "checkpoints", "delta") == marked
    assert rows(db, "checkpoints", "first") == first


async def test_an_id_holding_sql_prunes_its_own_thread_only(tmp_path: Path) -> None:
    """The deletes name the thread as an SQL literal: a quote in an id cannot reach another thread's rows."""
    db = tmp_path / "s.db"
    async with AsyncSqliteSaver.from_conn_string(str(db)) as plain:  # kept whole: LangGraph's own saver
        victim = await save_chain(plain, "victim", 4)
    hostile = "x' OR thread_id <> '"
    async with PruningSaver.from_conn_string(str(db)) as saver:
        own = await save_chain(saver, hostile, 4, ns="n' OR '1'='1")
        nul = await save_chain(saver, "with\0nul", 4)  # no literal can hold it: deleted the bound way
    assert rows(db, "checkpoints", "victim") == victim
    assert rows(db, "writes", "victim") == victim
    assert rows(db, "checkpoints", hostile, "n' OR '1'='1") == own[-2:]
    assert rows(db, "checkpoints", "with\0nul") == nul[-2:]
