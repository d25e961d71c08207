"""The ``postgres`` store: LangGraph checkpoints and session records in one PostgreSQL database.

Agents on several machines pointed at the same database share their sessions: one creates a
session, another lists, loads, resumes or forks it. The records live in table
``langacp_sessions`` beside LangGraph's checkpoint tables, in the same database. Nothing heavy
is imported when stevedore loads this module; the pool connects in :meth:`aopen`.
"""

from __future__ import annotations

import logging
import re
from typing import Any, ClassVar

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

__all__ = ["PostgresStore", "redact"]

log = logging.getLogger("langacp.postgres")

CONNECT_TIMEOUT = 10.0
POOL_MAX = 4
RECORD_BYTES = "convert_to(record, 'UTF8')"
"""The record column as UTF-8 bytes, decoded by us (any server encoding but ``SQL_ASCII``)."""
RECORD_RAW_BYTES = "convert_to(record, 'SQL_ASCII')"
"""In a ``SQL_ASCII`` database the server keeps bytes as they came and cannot convert them: read
them raw. A record there that is not UTF-8 is then an error naming its session, not a failed
query (or, as psycopg would return bytes there, records that vanish from the list)."""
CONNECTION = {"autocommit": True, "prepare_threshold": 0, "client_encoding": "UTF8"}
"""Connection settings; ``client_encoding``: text is UTF-8 whatever the server's encoding."""
CHECKPOINT_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
"""LangGraph's tables (``AsyncPostgresSaver``), which :meth:`PostgresStore.compact` trims."""
SETUP_LOCK = 0x6C616E67616370  # pg_advisory_lock key: one process at a time creates or migrates tables

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS langacp_sessions (
        session_id TEXT COLLATE "C" PRIMARY KEY,
        cwd TEXT NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL,
        record TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS langacp_sessions_recent ON langacp_sessions (updated_at DESC, session_id DESC)",
    "CREATE INDEX IF NOT EXISTS langacp_sessions_cwd ON langacp_sessions (cwd, updated_at DESC, session_id DESC)",
    LEASE_SCHEMA,
)
_LEASES = lease_statements("%s")


async def _lock(conn: Any) -> None:
    """Take the set-up advisory lock, polling: a statement blocked on it would hold a snapshot,
    and the ``CREATE INDEX CONCURRENTLY`` of LangGraph's migrations in the lock holder waits
    for every open snapshot (a deadlock PostgreSQL does not detect)."""
    import asyncio

    while True:
        row = await (await conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (SETUP_LOCK,))).fetchone()
        if row["ok"]:
            return
        await asyncio.sleep(0.05)


def redact(url: str) -> str:
    """``url`` without its password, for logs and errors."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


class PostgresStore:
    """Session store over ``AsyncPostgresSaver`` and a connection pool, plus a ``langacp_sessions`` table."""

    persistent: ClassVar[bool] = True

    @staticmethod
    def validate_url(url: str) -> None:
        """Raise ``ValueError`` if ``url`` is not a PostgreSQL URL or psycopg is missing (no connection made)."""
        import importlib.util

        if not url.startswith(("postgres://", "postgresql://")):
            raise ValueError(f"not a PostgreSQL URL: {redact(url)!r} (expected postgresql://user@host/dbname)")
        for module, dist in (("psycopg", "psycopg[binary]"), ("psycopg_pool", "psycopg-pool")):
            if importlib.util.find_spec(module) is None:
                raise ValueError(f"the {module} package is missing: pip install {dist} (or reinstall langacp-postgres)")

    def __init__(self, url: str) -> None:
        if not url.startswith(("postgres://", "postgresql://")):
            raise ValueError(f"not a PostgreSQL URL: {redact(url)!r} (expected postgresql://user@host/dbname)")
        self.url = url
        self.checkpointer: Any = None
        self._pool: Any = None
        self._record = RECORD_BYTES

    async def aopen(self) -> None:
        """Connect the pool and create the tables (once per database, under an advisory lock)."""
        import psycopg
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool

        from langacp_postgres.checkpoints import PruningSaver

        pool: Any = AsyncConnectionPool(
            self.url,
            min_size=1,
            max_size=POOL_MAX,
            open=False,
            kwargs={**CONNECTION, "row_factory": dict_row},
        )
        try:
            # One direct attempt first: the pool retries until its timeout and then only says "timed out".
            probe = await psycopg.AsyncConnection.connect(
                self.url, connect_timeout=int(CONNECT_TIMEOUT), client_encoding="UTF8"
            )
            await probe.close()
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
            saver = PruningSaver(pool)
            async with pool.connection() as conn:
                encoding = await (await conn.execute("SHOW server_encoding")).fetchone()
                if encoding and str(encoding["server_encoding"]).upper() == "SQL_ASCII":
                    self._record = RECORD_RAW_BYTES
                await _lock(conn)
                try:
                    await saver.setup()
                    for statement in SCHEMA:
                        await conn.execute(statement)
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
        except Exception as exc:
            await pool.close()
            raise StoreError(f"cannot use the PostgreSQL session database {redact(self.url)}: {exc}") from exc
        self._pool = pool
        self.checkpointer = saver
        log.info("langacp: sessions are stored in %s", redact(self.url))

    async def compact(self) -> Compaction:
        """Keep only each thread's latest checkpoint, then ``VACUUM`` the tables (their space is reused)."""
        from langacp_postgres.checkpoints import compact

        before = await self.size()
        deleted = await compact(self.checkpointer, self._pool)
        async with self._pool.connection() as conn:
            for table in CHECKPOINT_TABLES:
                await conn.execute(f"VACUUM {table}")
        return Compaction(redact(self.url), deleted, before, await self.size())

    async def size(self) -> int:
        """Bytes of LangGraph's checkpoint tables (with their indexes and TOAST)."""
        async with self._pool.connection() as conn:
            sizes = " + ".join(f"pg_total_relation_size('{table}')" for table in CHECKPOINT_TABLES)
            row = await (await conn.execute(f"SELECT {sizes} AS n")).fetchone()
        return int(row["n"]) if row else 0

    async def put(self, record: SessionRecord) -> None:
        import json

        async with self._pool.connection() as conn:
            await conn.execute(
                "INSERT INTO langacp_sessions (session_id, cwd, updated_at, record) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (session_id) DO UPDATE SET cwd = excluded.cwd, updated_at = excluded.updated_at, "
                "record = excluded.record",
                (record.session_id, record.cwd, record.updated_at, json.dumps(record.as_dict(), ensure_ascii=False)),
            )

    async def get(self, session_id: str) -> SessionRecord | None:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                f"SELECT {self._record} AS record FROM langacp_sessions WHERE session_id = %s", (session_id,)
            )
            row = await cursor.fetchone()
        return None if row is None else record_from_json(session_id, row["record"])

    async def delete(self, session_id: str) -> None:
        async with self._pool.connection() as conn:
            await conn.execute("DELETE FROM langacp_sessions WHERE session_id = %s", (session_id,))

    async def list(
        self, *, cwd: str | None = None, cursor: str | None = None, limit: int = 50
    ) -> tuple[list[SessionRecord], str | None]:
        sql, params = list_query(cwd=cwd, cursor=cursor, limit=limit, mark="%s", record=self._record)
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(sql, params)).fetchall()
        return list_page([(r["session_id"], r["cwd"], r["updated_at"], r["record"]) for r in rows], limit)

    async def acquire(self, session_id: str, owner: str, ttl: float) -> str | None:
        """Take the lease of ``session_id`` for ``owner``; ``None`` if taken, else who holds it."""
        import time

        holder = owner
        async with self._pool.connection() as conn:
            for _attempt in range(2):
                await conn.execute(_LEASES["take"], (session_id, owner, time.time() + ttl, time.time()))
                row = await (await conn.execute(_LEASES["holder"], (session_id,))).fetchone()
                holder = str(row["owner"]) if row else owner
                if holder == owner:
                    return None
                if not holder_is_gone(holder):
                    return holder
                await conn.execute(_LEASES["drop_dead"], (session_id, holder))
        return holder

    async def renew(self, owner: str, ttl: float) -> None:
        """Extend every lease ``owner`` holds."""
        import time

        async with self._pool.connection() as conn:
            await conn.execute(_LEASES["renew"], (time.time() + ttl, owner))

    async def release(self, session_id: str, owner: str) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_LEASES["release"], (session_id, owner))

    async def aclose(self) -> None:
        if self.checkpointer is not None:
            await self.checkpointer.drain()
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
