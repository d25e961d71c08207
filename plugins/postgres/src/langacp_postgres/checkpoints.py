"""Checkpoints kept linear in a conversation's length: the ``postgres`` store prunes each thread as it saves.

LangGraph saves a checkpoint after every step of a run and keeps them all; each new version of
the messages channel is a blob holding the whole conversation, so a session of N turns stores
~5N copies of a history that grows with N. No session needs them: ``session/load`` and
``session/fork`` read a thread's latest checkpoint, resuming after a crash starts from it and
its pending writes, and history rewrites write new checkpoints on top of it.
:class:`PruningSaver` runs LangGraph's own ``aprune(strategy="keep_latest")`` on a thread once
its root graph has stopped saving checkpoints for a moment (``quiet`` seconds; at the latest
``patience`` seconds after the first checkpoint left to prune): checkpoints saved in quick
succession (the steps of a turn with no slow model call between them) cost one prune, not one
each, and a prune runs while the thread is idle rather than in front of its next save. The
latest checkpoint (and what it needs: its pending writes, blobs, running subgraph calls) stays,
the rest goes. A prune that fails (another transaction touched the thread meanwhile) is left to
the next checkpoint.
Threads of a graph using a ``DeltaChannel`` are left whole (``aprune`` refuses them).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from langacp.api import uses_delta

__all__ = ["PruningSaver", "compact"]

log = logging.getLogger("langacp.postgres")


class PruningSaver(AsyncPostgresSaver):
    """``AsyncPostgresSaver`` keeping each thread at its latest checkpoint.

    The prune runs beside the run, not in its way: a checkpoint is saved as fast as before, so a
    process killed mid-step loses no more than it did. A thread is pruned once no checkpoint of
    its root graph has been saved for ``quiet`` seconds, or ``patience`` seconds after the first
    one waiting, whichever comes first; one prune per thread at a time, and a checkpoint saved
    while it runs is pruned by one follow-up (``aprune`` reads one snapshot and never touches
    what was saved after it). :meth:`drain` prunes what is waiting at once.
    """

    quiet: float = 0.1
    """Seconds without a root checkpoint of a thread after which it is pruned."""
    patience: float = 1.0
    """Seconds after a thread's first unpruned root checkpoint by which it is pruned, saves or not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pruning: dict[str, asyncio.Task[None]] = {}
        self._waiting: dict[str, tuple[float, asyncio.TimerHandle]] = {}
        """Threads with a prune to come: when their first waiting checkpoint was saved, and the timer."""
        self._again: set[str] = set()
        """Threads whose timer fired while their prune ran: pruned once more after it."""

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        saved = await super().aput(config, checkpoint, metadata, new_versions)
        configurable = config["configurable"]
        if configurable.get("checkpoint_id") and not configurable.get("checkpoint_ns") and not uses_delta(metadata):
            self._schedule(str(configurable["thread_id"]))
        return saved

    def _schedule(self, thread_id: str) -> None:
        """(Re)set the thread's timer: ``quiet`` from now, ``patience`` from its first waiting save at the latest."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        first = now
        waiting = self._waiting.get(thread_id)
        if waiting is not None:
            first = waiting[0]
            waiting[1].cancel()
        when = min(now + self.quiet, first + self.patience)
        self._waiting[thread_id] = (first, loop.call_at(when, self._start, thread_id))

    def _start(self, thread_id: str) -> None:
        """The thread's timer fired: prune it now, or right after the prune under way."""
        waiting = self._waiting.pop(thread_id, None)
        if waiting is not None:
            waiting[1].cancel()
        if thread_id in self._pruning:
            self._again.add(thread_id)
        else:
            self._pruning[thread_id] = asyncio.get_running_loop().create_task(self._prune(thread_id))

    async def _prune(self, thread_id: str) -> None:
        try:
            await self.aprune([thread_id], strategy="keep_latest")
        except NotImplementedError:
            pass  # a DeltaChannel thread: its history is how it is read
        except Exception as exc:  # noqa: BLE001 - a concurrent change; the next checkpoint prunes
            log.debug("langacp: pruning thread %s left for later: %s", thread_id, exc)
        finally:
            del self._pruning[thread_id]
            if thread_id in self._again:
                self._again.discard(thread_id)
                self._start(thread_id)

    async def drain(self) -> None:
        """Prune every thread waiting for it now and wait for the prunes under way (before the pool closes)."""
        while self._waiting or self._pruning:
            for thread_id in list(self._waiting):
                self._start(thread_id)
            if self._pruning:
                await asyncio.gather(*self._pruning.values(), return_exceptions=True)


async def compact(saver: AsyncPostgresSaver, pool: Any) -> int:
    """Keep only the latest checkpoint of every thread (``DeltaChannel`` threads stay whole); checkpoints deleted."""
    count = "SELECT thread_id, count(*) AS n FROM checkpoints GROUP BY thread_id"
    async with pool.connection() as conn:
        before = {row["thread_id"]: int(row["n"]) for row in await (await conn.execute(count)).fetchall()}
    for thread_id in before:
        try:
            await saver.aprune([thread_id], strategy="keep_latest")
        except NotImplementedError:
            continue
    async with pool.connection() as conn:
        after = {row["thread_id"]: int(row["n"]) for row in await (await conn.execute(count)).fetchall()}
    return sum(n - after.get(thread_id, 0) for thread_id, n in before.items())
