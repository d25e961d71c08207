"""The ``sqlite`` store: LangGraph checkpoints and session records in one SQLite file.

Both live in the same database and go through the same connection, so a session's record
and its conversation are read from the same place. WAL mode and a busy timeout let several
agent processes share one file. The module imports nothing heavy: stevedore loads it when
``initialize`` is answered; the database is opened later, on the event loop (:meth:`aopen`).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote

from langacp.api import (
    LEASE_SCHEMA,
    Compaction,
    SessionRecord,
    StoreError,
    holder_is_gone,
    lease_statements,
    list_page,
    list_query,
    record_from_json,
)

__all__ = ["SqliteStore", "database_path", "default_database_path"]

log = logging.getLogger("langacp.sqlite")

BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another process holding the database lock."""

_LEASES = lease_statements()
_TAKE_RETURNING = _LEASES["take"] + " RETURNING owner"
"""The lease taken and, in the same trip to the connection's thread, whether it was (SQLite >= 3.35)."""


def _returning() -> bool:
    """Whether the SQLite library has ``RETURNING`` (3.35); without it the holder is read after the take."""
    import sqlite3

    return sqlite3.sqlite_version_info >= (3, 35, 0)


RECORD_BYTES = "CAST(record AS BLOB)"
"""The record column as bytes, decoded by us: a record that is not UTF-8 is an error naming its
session, instead of sqlite3's "Could not decode" failing the whole query."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS langacp_sessions (
    session_id TEXT PRIMARY KEY,
    cwd TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS langacp_sessions_recent ON langacp_sessions (updated_at DESC, session_id DESC);
CREATE INDEX IF NOT EXISTS langacp_sessions_cwd ON langacp_sessions (cwd, updated_at DESC, session_id DESC);
"""


def default_database_path() -> Path:
    """``$XDG_DATA_HOME/langacp/sessions.db`` (``~/.local/share/langacp/sessions.db`` by default)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "langacp" / "sessions.db"


def database_path(url: str) -> Path:
    """The file a ``sqlite`` URL names.

    ``sqlite`` (or ``sqlite://``): :func:`default_database_path`; ``sqlite:///abs/path.db``:
    an absolute path; ``sqlite:relative/path.db`` or ``sqlite:~/x.db``: relative to the
    working directory or home.
    """
    scheme, _, rest = url.partition(":")
    if scheme != "sqlite":
        raise ValueError(f"not a sqlite URL: {url!r}")
    rest = unquote(rest)
    if rest in ("", "//"):
        return default_database_path()
    if rest.startswith("///"):
        return Path(rest[2:])
    if rest.startswith("//"):
        raise ValueError(f"{url!r}: use sqlite:///absolute/path.db or sqlite:relative/path.db")
    return Path(rest).expanduser().resolve()


def _locked(exc: BaseException) -> bool:
    """SQLite answered ``SQLITE_BUSY`` (any of its extended codes): another connection holds a lock."""
    import sqlite3

    return isinstance(exc, sqlite3.OperationalError) and (getattr(exc, "sqlite_errorcode", 0) & 0xFF) == 5


async def _set_up(conn: Any, saver: Any) -> None:
    """WAL mode and the tables (each step a no-op when done), retried while another process holds a lock.

    Two processes opening one new file race: the file is still in rollback-journal mode, and
    while one holds its write lock (creating its tables) SQLite refuses the other's switch to
    WAL at once, *without* waiting for the busy timeout (it would risk a deadlock). The steps
    are idempotent (``IF NOT EXISTS``, the pragma), so they are tried again, ``BUSY_TIMEOUT``
    seconds at most in all; any other error is raised at once.
    """
    import asyncio
    import random

    deadline = asyncio.get_running_loop().time() + BUSY_TIMEOUT
    while True:
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            await saver.setup()
            async with saver.lock:
                await conn.executescript(SCHEMA + LEASE_SCHEMA + ";")
                await conn.commit()
            return
        except Exception as exc:
            if not _locked(exc) or asyncio.get_running_loop().time() > deadline:
                raise
            log.debug("langacp: the session database is being set up by another process; trying again")
        await conn.rollback()
        await asyncio.sleep(random.uniform(0.01, 0.05))


class SqliteStore:
    """Session store over ``AsyncSqliteSaver`` plus a ``langacp_sessions`` table in the same file."""

    persistent: ClassVar[bool] = True

    @staticmethod
    def validate_url(url: str) -> None:
        """Raise ``ValueError`` if ``url`` is not a sqlite URL this driver takes (nothing is opened)."""
        database_path(url)

    def __init__(self, url: str = "sqlite") -> None:
        self.url = url
        self.path = database_path(url)
        self.checkpointer: Any = None
        self._conn: Any = None

    async def aopen(self) -> None:
        """Open the database (creating the file and its tables if needed), on the running loop."""
        import aiosqlite

        from langacp_sqlite.checkpoints import PruningSaver

        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(self.path), timeout=BUSY_TIMEOUT)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            saver = PruningSaver(conn)
            await _set_up(conn, saver)
        except Exception as exc:
            await conn.close()
            raise StoreError(f"cannot open the session database {self.path}: {exc}") from exc
        self._conn = conn
        self.checkpointer = saver
        log.info("langacp: sessions are stored in %s", self.path)

    async def compact(self) -> Compaction:
        """Keep only each thread's latest checkpoint, then give the freed pages back (``VACUUM``)."""
        from langacp_sqlite.checkpoints import compact

        before = self.size()
        deleted = await compact(self.checkpointer)
        async with self.checkpointer.lock:
            await self._conn.execute("VACUUM")
            await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return Compaction(str(self.path), deleted, before, self.size())

    def size(self) -> int:
        """Bytes of the database file and its write-ahead log."""
        return sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())

    async def put(self, record: SessionRecord) -> None:
        data = json.dumps(record.as_dict(), ensure_ascii=False)
        async with self.checkpointer.lock:
            await self._conn.execute(
                "INSERT INTO langacp_sessions (session_id, cwd, updated_at, record) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (session_id) DO UPDATE SET cwd = excluded.cwd, updated_at = excluded.updated_at, "
                "record = excluded.record",
                (record.session_id, record.cwd, record.updated_at, data),
            )
            await self._conn.commit()

    async def get(self, session_id: str) -> SessionRecord | None:
        # One trip to the connection's thread (a cursor opened, read and closed: three).
        rows = list(
            await self._conn.execute_fetchall(
                f"SELECT {RECORD_BYTES} FROM langacp_sessions WHERE session_id = ?", (session_id,)
            )
        )
        if not rows:
            return None
        return record_from_json(session_id, rows[0][0])

    async def delete(self, session_id: str) -> None:
        async with self.checkpointer.lock:
            await self._conn.execute("DELETE FROM langacp_sessions WHERE session_id = ?", (session_id,))
            await self._conn.commit()

    async def list(
        self, *, cwd: str | None = None, cursor: str | None = None, limit: int = 50
    ) -> tuple[list[SessionRecord], str | None]:
        sql, params = list_query(cwd=cwd, cursor=cursor, limit=limit, record=RECORD_BYTES)
        async with self._conn.execute(sql, params) as rows:
            fetched = list(await rows.fetchall())
        return list_page(fetched, limit)

    async def acquire(self, session_id: str, owner: str, ttl: float) -> str | None:
        """Take the lease of ``session_id`` for ``owner``; ``None`` if taken, else who holds it."""
        import time

        holder = owner
        for _attempt in range(2):
            async with self.checkpointer.lock:
                taking = (session_id, owner, time.time() + ttl, time.time())
                if _returning():
                    # The take says whether it took the lease: a row comes back only when the lease was
                    # inserted or updated (free, ours or expired), none while another holder keeps it.
                    taken = list(await self._conn.execute_fetchall(_TAKE_RETURNING, taking))
                    await self._conn.commit()  # (a take that changed nothing still opened a transaction)
                    if taken:
                        return None
                else:
                    await self._conn.execute(_LEASES["take"], taking)
                    await self._conn.commit()
                rows = list(await self._conn.execute_fetchall(_LEASES["holder"], (session_id,)))  # one trip
                holder = str(rows[0][0]) if rows else owner
                if holder == owner:
                    return None
                if not holder_is_gone(holder):
                    return holder
                await self._conn.execute(_LEASES["drop_dead"], (session_id, holder))
                await self._conn.commit()
        return holder

    async def renew(self, owner: str, ttl: float) -> None:
        """Extend every lease ``owner`` holds."""
        import time

        async with self.checkpointer.lock:
            await self._conn.execute(_LEASES["renew"], (time.time() + ttl, owner))
            await self._conn.commit()

    async def release(self, session_id: str, owner: str) -> None:
        async with self.checkpointer.lock:
            await self._conn.execute(_LEASES["release"], (session_id, owner))
            await self._conn.commit()

    async def aclose(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
