"""The ``memory`` store: sessions live as long as the process. Not persistent."""

from __future__ import annotations

from typing import Any, ClassVar

from langgraph.checkpoint.memory import InMemorySaver

from langacp.compat.langgraph import drop_memory_checkpoints, uses_delta
from langacp.stores import InvalidCursor, SessionRecord

__all__ = ["MemoryStore", "PruningMemorySaver"]


class PruningMemorySaver(InMemorySaver):
    """``InMemorySaver`` keeping each thread's latest two checkpoints (the newest and its parent).

    LangGraph saves a checkpoint after every step, each holding the whole conversation, and
    ``InMemorySaver`` keeps them all: a session's memory would grow with the square of its
    length. Nothing a session does reads an older one: ``session/fork``, resuming and the next
    turn start from the thread's latest checkpoint and its pending writes (kept), and history
    rewrites write new checkpoints on top of it. Assumes checkpoint ids grow with time (LangGraph's
    are uuid6, compared as strings, as its savers do). A thread whose graph uses a ``DeltaChannel``
    (its checkpoints need their ancestors) keeps every checkpoint.
    """

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        saved = super().put(config, checkpoint, metadata, new_versions)
        configurable = config["configurable"]
        parent = configurable.get("checkpoint_id")
        if parent and not uses_delta(metadata):
            drop_memory_checkpoints(self, configurable["thread_id"], configurable.get("checkpoint_ns", ""), parent)
        return saved


class MemoryStore:
    """In-process store over LangGraph's ``InMemorySaver``, keeping each thread's latest checkpoints."""

    persistent: ClassVar[bool] = False

    def __init__(self, url: str = "memory") -> None:
        self.url = url
        self.checkpointer: Any = PruningMemorySaver()
        self._records: dict[str, SessionRecord] = {}

    async def put(self, record: SessionRecord) -> None:
        self._records[record.session_id] = record

    async def get(self, session_id: str) -> SessionRecord | None:
        return self._records.get(session_id)

    async def list(
        self, *, cwd: str | None = None, cursor: str | None = None, limit: int = 50
    ) -> tuple[list[SessionRecord], str | None]:
        records = sorted(self._records.values(), key=lambda r: (r.updated_at, r.session_id), reverse=True)
        if cwd is not None:
            records = [r for r in records if r.cwd == cwd]
        if cursor is not None and not cursor.isdigit():
            raise InvalidCursor(cursor)
        start = int(cursor) if cursor else 0
        page = records[start : start + limit]
        more = start + limit < len(records)
        return page, str(start + limit) if more else None

    async def delete(self, session_id: str) -> None:
        self._records.pop(session_id, None)

    async def aclose(self) -> None:
        self._records.clear()
