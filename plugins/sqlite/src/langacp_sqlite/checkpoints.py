"""Checkpoints kept linear in a conversation's length: what the ``sqlite`` store writes to LangGraph's tables.

LangGraph saves a checkpoint after every step of a run, each holding the whole conversation, and
keeps them all: a session of N turns stores ~5N copies of a history that grows with N. No
session needs them: ``session/load`` and ``session/fork`` read a thread's latest checkpoint,
resuming after a crash starts from it and its pending writes, and history rewrites (``/clear``,
summarization, repairs) write new checkpoints on top of it. :class:`PruningSaver` therefore
deletes, in the transaction that saves a checkpoint, every checkpoint of that thread and
namespace older than the new one's parent (and their pending writes): the thread keeps its
latest two, so a process killed at any point leaves the latest complete step on disk, as
before. :func:`compact` does the same for every thread of a database written before (keeping
each thread's latest checkpoint) and gives the freed pages back to the file system.

Threads of a graph using LangGraph's ``DeltaChannel`` (whose checkpoints need their ancestors)
are left as they are. This module is the only place that knows the layout of
``AsyncSqliteSaver``'s tables (``checkpoints``, ``writes``); a test pins it.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from langacp.api import DELTA_MARKERS, TASKS_CHANNEL, uses_delta

__all__ = ["PruningSaver", "compact"]

log = logging.getLogger("langacp.sqlite")

TASKS = TASKS_CHANNEL
"""The channel of pending ``Send``s, read from the parent by checkpoints older than format 4."""

_OLDER_WRITES = "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?"
_OLDER_CHECKPOINTS = "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?"
_DELTA_THREADS = "SELECT DISTINCT thread_id FROM checkpoints WHERE " + " OR ".join(
    f"instr(CAST(metadata AS TEXT), '\"{key}\"') > 0" for key in DELTA_MARKERS
)
_HEADS = """
SELECT h.thread_id, h.checkpoint_ns, h.head, c.parent_checkpoint_id, EXISTS (
    SELECT 1 FROM writes w WHERE w.thread_id = h.thread_id AND w.checkpoint_ns = h.checkpoint_ns
    AND w.checkpoint_id = c.parent_checkpoint_id AND w.channel = ?
)
FROM (
    SELECT thread_id, checkpoint_ns, max(checkpoint_id) AS head FROM checkpoints GROUP BY thread_id, checkpoint_ns
) AS h
JOIN checkpoints c ON c.thread_id = h.thread_id AND c.checkpoint_ns = h.checkpoint_ns AND c.checkpoint_id = h.head
"""


def _literal(text: str) -> str:
    """``text`` as an SQL string literal (SQLite has no escapes but the doubled quote)."""
    return "'" + text.replace("'", "''") + "'"


def _prune_script(key: tuple[str, str, str]) -> str:
    """A transaction begun with the deletes of every checkpoint (and its writes) older than ``key``'s."""
    where = " WHERE thread_id = {} AND checkpoint_ns = {} AND checkpoint_id < {};".format(*map(_literal, key))
    return "BEGIN; DELETE FROM writes" + where + " DELETE FROM checkpoints" + where


class PruningSaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` keeping each thread's latest two checkpoints (the newest and its parent)."""

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        configurable = config["configurable"]
        parent = configurable.get("checkpoint_id")
        if not parent or uses_delta(metadata):
            return await super().aput(config, checkpoint, metadata, new_versions)
        await self.setup()
        key = (str(configurable["thread_id"]), str(configurable.get("checkpoint_ns", "")), str(parent))
        async with self.lock:
            # Uncommitted: they commit with the new checkpoint (the parent, the thread's latest
            # so far, is kept, so whenever they commit the thread still has a checkpoint).
            if any("\0" in part for part in key):
                await self.conn.execute(_OLDER_WRITES, key)
                await self.conn.execute(_OLDER_CHECKPOINTS, key)
            else:  # one trip to the connection's thread instead of two (an INSERT trigger would
                # save that one too, but SQLite then journals the deleted rows' pages per statement)
                await self.conn.executescript(_prune_script(key))
        try:
            return await super().aput(config, checkpoint, metadata, new_versions)
        except BaseException:
            async with self.lock:  # no transaction is left open on the shared connection
                await self.conn.commit()
            raise


async def compact(saver: AsyncSqliteSaver) -> int:
    """Keep only the latest checkpoint of every thread and namespace; the number of checkpoints deleted.

    A thread's latest checkpoint, its pending writes, and the parent an old-format checkpoint
    reads its pending ``Send``s from stay; threads using a ``DeltaChannel`` stay whole.
    """
    await saver.setup()
    conn = saver.conn
    deleted = 0
    async with saver.lock:
        async with conn.execute(_DELTA_THREADS) as cursor:
            delta = {row[0] for row in await cursor.fetchall()}
        async with conn.execute(_HEADS, (TASKS,)) as cursor:
            heads = list(await cursor.fetchall())
        for thread_id, ns, head, parent, sends in heads:
            if thread_id in delta:
                continue
            keep = (thread_id, ns, head, parent if sends else head)
            await conn.execute(_OLDER_WRITES + " AND checkpoint_id <> ?", keep)
            cursor = await conn.execute(_OLDER_CHECKPOINTS + " AND checkpoint_id <> ?", keep)
            deleted += max(cursor.rowcount, 0)
            if not sends:
                await conn.execute(
                    "UPDATE checkpoints SET parent_checkpoint_id = NULL "
                    "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
                    (thread_id, ns, head),
                )
        await conn.commit()
    if delta:
        log.info("langacp: %d thread(s) use a DeltaChannel and were left whole", len(delta))
    return deleted
