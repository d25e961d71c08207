"""Session stores: where a session's metadata and its LangGraph checkpoints live.

A store is a driver chosen by name through stevedore (entry-point group ``langacp.stores``):
``--store memory`` or ``--store sqlite:///path/to/file.db`` picks the driver named by the
URL's scheme. The core ships ``memory``; persistent drivers come as plugins (``sqlite``,
``postgres``). Without ``--store``, ``sqlite`` is used when its driver is installed.
Leases (one process serves a session at a time) live in :mod:`langacp.stores.leases`.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, runtime_checkable

from langacp.stores.leases import (
    LEASE_SCHEMA,
    LEASE_TTL,
    Leases,
    SessionBusy,
    describe_owner,
    holder_is_gone,
    lease_owner,
    lease_statements,
)

_log = logging.getLogger("langacp.stores")

__all__ = [
    "LEASE_SCHEMA",
    "LEASE_TTL",
    "STORE_GROUP",
    "Compaction",
    "InvalidCursor",
    "Leases",
    "SessionBusy",
    "SessionRecord",
    "SessionStore",
    "StoreError",
    "copy_thread",
    "decode_cursor",
    "default_store_url",
    "describe_owner",
    "driver_name",
    "encode_cursor",
    "holder_is_gone",
    "lease_owner",
    "lease_statements",
    "list_page",
    "list_query",
    "load_store_driver",
    "now_iso",
    "open_store",
    "record_from_json",
    "session_threads",
]

STORE_GROUP = "langacp.stores"


def now_iso() -> str:
    """The current UTC time as ISO 8601, as ACP's ``updatedAt`` expects."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class SessionRecord:
    """A session's metadata, kept beside its checkpoints (JSON-serialisable)."""

    session_id: str
    cwd: str
    additional_directories: list[str] = field(default_factory=list)
    title: str | None = None
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    mode_id: str | None = None
    thread_id: str | None = None
    """The LangGraph thread of the conversation; ``None``: the session id (until ``/clear``)."""
    data: dict[str, Any] = field(default_factory=dict)
    """Plugin data (remembered permissions, MCP servers, …), keyed by plugin name."""
    client: str | None = None
    """The name the client that last opened the session gave in ``initialize`` (``clientInfo.name``)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> SessionRecord:
        """A record from :meth:`as_dict` output; :class:`StoreError` if it is not one."""
        if not isinstance(data, dict):
            raise StoreError(f"a session record must be a JSON object, not {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        try:
            record = cls(**{k: v for k, v in data.items() if k in known})
        except TypeError as exc:
            raise StoreError(f"incomplete session record: {exc}") from exc
        for name in ("session_id", "cwd", "created_at", "updated_at"):
            if not isinstance(getattr(record, name), str):
                raise StoreError(f"session record field {name!r} is not a string")
        if not isinstance(record.additional_directories, list) or not isinstance(record.data, dict):
            raise StoreError("session record fields additional_directories / data have the wrong type")
        if not all(isinstance(v, str | None) for v in (record.title, record.mode_id, record.thread_id, record.client)):
            raise StoreError("session record fields title / mode_id / thread_id / client are not strings")
        return record


@dataclass(frozen=True)
class Compaction:
    """What a store's ``compact()`` did: checkpoints deleted, and the size of its data before and after."""

    where: str
    """The database compacted (a path, or a URL without its password)."""
    checkpoints_deleted: int
    bytes_before: int
    bytes_after: int


class StoreError(Exception):
    """A stored session cannot be read (corrupt or foreign data): reported, never overwritten."""


class InvalidCursor(ValueError):
    """A ``session/list`` cursor this store did not hand out."""


@runtime_checkable
class SessionStore(Protocol):
    """What a store driver provides. ``persistent`` decides whether ``loadSession`` is offered."""

    persistent: ClassVar[bool]
    checkpointer: Any
    """A LangGraph checkpointer (``BaseCheckpointSaver``) holding every session's thread."""

    async def put(self, record: SessionRecord) -> None:
        """Insert or replace a session's record."""

    async def get(self, session_id: str) -> SessionRecord | None:
        """The record of a session, or ``None``."""

    async def list(
        self, *, cwd: str | None = None, cursor: str | None = None, limit: int = 50
    ) -> tuple[list[SessionRecord], str | None]:
        """Records, most recently updated first, and the cursor of the next page (or ``None``)."""

    async def aclose(self) -> None:
        """Release connections; stored data stays."""

    # Optional: ``async def aopen(self) -> None``, awaited on the event loop once, right after the
    # driver was instantiated (in a worker thread): connect there when the connection or the
    # checkpointer must be created inside the running loop.
    # Optional: ``async def delete(self, session_id: str) -> None``: remove the record (the agent
    # removes the session's threads through the checkpointer first). A driver with it offers
    # ``session/delete``; deleting an unknown id is not an error.
    #
    # Optional: ``async def compact(self) -> Compaction``: delete the checkpoints no session can
    # need any more (every thread keeps its latest) and give the space back; what
    # ``langacp sessions compact`` runs.
    #
    # Optional, for stores several processes share (see :mod:`langacp.stores.leases`):
    # ``async def acquire(self, session_id, owner, ttl) -> str | None`` (``None``: the lease is
    # ``owner``'s now; else the owner holding it), ``async def renew(self, owner, ttl) -> None``,
    # ``async def release(self, session_id, owner) -> None``. And ``validate_url(url)`` (a static
    # method) raising ``ValueError`` for a URL the driver cannot use, checked before serving.


def session_threads(session_id: str, record: SessionRecord | None) -> list[str]:
    """Every checkpoint thread a session wrote: its id, its current thread and those ``/clear`` left behind."""
    threads = [session_id]
    if record is not None:
        threads += [*record.data.get("langacp", {}).get("threads", []), record.thread_id or session_id]
    return list(dict.fromkeys(t for t in threads if isinstance(t, str) and t))


def driver_name(url: str) -> str:
    """The driver a store URL names: its scheme (``sqlite:///x.db`` → ``sqlite``)."""
    return url.split(":", 1)[0] if ":" in url else url


def load_store_driver(url: str) -> type[SessionStore]:
    """The driver class for ``url``, without instantiating it (cheap: no database opened)."""
    from stevedore import DriverManager

    name = driver_name(url)
    try:
        manager: Any = DriverManager(namespace=STORE_GROUP, name=name, invoke_on_load=False)
    except Exception as exc:  # stevedore raises NoMatches / NoUniqueMatch / import errors
        raise ValueError(f"no session store driver {name!r} is installed ({exc})") from exc
    driver: type[SessionStore] = manager.driver
    return driver


def open_store(url: str) -> SessionStore:
    """Instantiate the store driver for ``url``; the driver receives the whole URL."""
    return load_store_driver(url)(url)  # type: ignore[call-arg]


def encode_cursor(updated_at: str, session_id: str) -> str:
    """An opaque ``session/list`` cursor: the page after this session (keyset: updated_at, session_id)."""
    import base64
    import json

    raw = json.dumps([updated_at, session_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """``(updated_at, session_id)`` from :func:`encode_cursor`; :class:`InvalidCursor` otherwise."""
    import base64
    import binascii
    import json

    try:
        value = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error) as exc:
        raise InvalidCursor(cursor) from exc
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise InvalidCursor(cursor)
    return value[0], value[1]


def record_from_json(session_id: str, raw: Any) -> SessionRecord:
    """Parse a stored JSON record of ``session_id``; :class:`StoreError` if it is not one."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StoreError(f"the record of session {session_id} is not UTF-8 text ({exc})") from exc
    try:
        data = json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"the record of session {session_id} is not valid JSON ({exc})") from exc
    record = SessionRecord.from_dict(data)
    if record.session_id != session_id:
        raise StoreError(f"the record holds session id {record.session_id!r}")
    return record


def list_query(
    *, cwd: str | None, cursor: str | None, limit: int, mark: str = "?", record: str = "record"
) -> tuple[str, list[Any]]:
    """SQL and parameters for one page of the ``langacp_sessions`` table the SQL drivers share.

    Newest first; ``mark`` is the driver's parameter placeholder (``?`` or ``%s``); ``record``
    the SQL expression that reads the record column (PostgreSQL reads it as UTF-8 bytes). One
    row more than ``limit`` is asked for, so :func:`list_page` knows whether another page follows.
    """
    where: list[str] = []
    params: list[Any] = []
    if cwd is not None:
        where.append(f"cwd = {mark}")
        params.append(cwd)
    if cursor is not None:
        where.append(f"(updated_at, session_id) < ({mark}, {mark})")
        params.extend(decode_cursor(cursor))
    sql = f"SELECT session_id, cwd, updated_at, {record} AS record FROM langacp_sessions"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return f"{sql} ORDER BY updated_at DESC, session_id DESC LIMIT {mark}", [*params, limit + 1]


def list_page(rows: list[Any], limit: int) -> tuple[list[SessionRecord], str | None]:
    """Records of the first ``limit`` rows and the next cursor.

    ``rows`` are ``(session_id, cwd, updated_at, record)``, at most ``limit + 1`` of them. A
    record that cannot be read (not UTF-8, not JSON, not a record) is still listed, titled with
    the reason and logged: the list is never silently shorter, and loading that session
    gives a clear error.
    """
    records: list[SessionRecord] = []
    for session_id, cwd, updated_at, raw in rows[:limit]:
        try:
            records.append(record_from_json(session_id, raw))
        except StoreError as exc:
            _log.warning("langacp: %s", exc)
            records.append(
                SessionRecord(
                    session_id=str(session_id),
                    cwd=str(cwd),
                    updated_at=str(updated_at),
                    title=f"(unreadable session record: {exc})",
                )
            )
    if len(rows) <= limit:
        return records, None
    session_id, _cwd, updated_at, _raw = rows[limit - 1]
    return records, encode_cursor(updated_at, session_id)


def default_store_url() -> str:
    """``sqlite`` (a file in the user data directory) when that driver is installed, else ``memory``.

    Reads entry-point metadata only: nothing is imported and no database is opened.
    """
    from importlib.metadata import entry_points

    return "sqlite" if any(ep.name == "sqlite" for ep in entry_points(group=STORE_GROUP)) else "memory"


async def copy_thread(checkpointer: Any, source: str, target: str) -> bool:
    """Copy the latest checkpoint of thread ``source`` (and its pending writes) to thread ``target``.

    What ``session/fork`` does to the conversation: the copy starts where the source stands
    and the two then diverge. Only the head checkpoint is copied (the history of earlier
    checkpoints is not needed to continue). Returns ``False`` if ``source`` has no checkpoint.
    """
    tup = await checkpointer.aget_tuple({"configurable": {"thread_id": source, "checkpoint_ns": ""}})
    if tup is None:
        return False
    checkpoint = dict(tup.checkpoint)
    checkpoint["channel_values"] = dict(checkpoint.get("channel_values") or {})
    config = {"configurable": {"thread_id": target, "checkpoint_ns": ""}}
    saved = await checkpointer.aput(
        config, checkpoint, dict(tup.metadata or {}), dict(checkpoint.get("channel_versions") or {})
    )
    by_task: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for task_id, channel, value in tup.pending_writes or []:
        by_task.setdefault((task_id, ""), []).append((channel, value))
    for (task_id, task_path), writes in by_task.items():
        await checkpointer.aput_writes(saved, writes, task_id, task_path)
    return True
