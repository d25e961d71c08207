"""The ``memory`` store: sessions live as long as the process. Not persistent."""

from __future__ import annotations

from typing import Any, ClassVar

from langacp.stores import InvalidCursor, SessionRecord


class MemoryStore:
    """In-process store over LangGraph's ``InMemorySaver``."""

    persistent: ClassVar[bool] = False

    def __init__(self, url: str = "memory") -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        self.url = url
        self.checkpointer: Any = InMemorySaver()
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
