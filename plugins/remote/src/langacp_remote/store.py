"""Sessions kept as the server's threads: every ``langacp serve --remote`` process sees the same ones.

A session's record lives in its thread's metadata (``langacp_record``), beside searchable keys:
``langacp_session_id``, ``langacp_graph`` (the assistant served), ``cwd``, ``langacp_host``,
``langacp_version`` and ``langacp_client`` (the editor's ``clientInfo.name``, when it sent one).
``session/list`` is ``threads.search`` on that metadata, newest first; ``session/delete`` is
``threads.delete`` of every thread of the session.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import socket
import uuid
from typing import Any, ClassVar

import httpx
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import APIConnectionError, APITimeoutError, NotFoundError

from langacp.api import InvalidCursor, SessionRecord, StoreError, __version__
from langacp_remote.graph import RemoteUnavailable, thread_id

__all__ = ["ThreadStore"]

RECORD_KEY = "langacp_record"
SESSION_KEY = "langacp_session_id"
GRAPH_KEY = "langacp_graph"
SHARED_DATA = ("remote",)
"""Owners of session data kept in the thread's metadata (see :func:`_shared_data`)."""


def _same_uuid(a: str, b: str) -> bool:
    try:
        return uuid.UUID(a) == uuid.UUID(b)
    except ValueError:
        return a == b


class ThreadStore:
    """A ``SessionStore`` on a LangGraph Server's threads (the server keeps the checkpoints too)."""

    persistent: ClassVar[bool] = True
    checkpointer: Any = None

    def __init__(self, client: LangGraphClient, url: str, graph: str) -> None:
        self.client = client
        self.url = url
        self.graph = graph

    def _unavailable(self, exc: BaseException) -> RemoteUnavailable:
        return RemoteUnavailable(f"the LangGraph server at {self.url} is unreachable ({type(exc).__name__}: {exc})")

    def _metadata(self, record: SessionRecord) -> dict[str, Any]:
        shared = record.as_dict()
        shared["data"] = _shared_data(record.data)
        return {
            SESSION_KEY: record.session_id,
            GRAPH_KEY: self.graph,
            "cwd": record.cwd,
            "langacp_host": socket.gethostname(),
            "langacp_version": __version__,
            **({"langacp_client": record.client} if record.client else {}),
            RECORD_KEY: shared,
        }

    async def put(self, record: SessionRecord) -> None:
        tid = thread_id(record.thread_id or record.session_id)
        metadata = self._metadata(record)
        try:
            try:
                await self.client.threads.update(tid, metadata=metadata, return_minimal=True)
            except NotFoundError:
                await self.client.threads.create(thread_id=tid, metadata=metadata, if_exists="do_nothing")
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc

    async def get(self, session_id: str) -> SessionRecord | None:
        try:
            threads = await self.client.threads.search(
                metadata={SESSION_KEY: session_id}, limit=10, sort_by="updated_at", sort_order="desc"
            )
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc
        if not threads:
            return None
        for thread in threads:  # the newest thread that holds the session's record (see _current)
            record = self._current(thread)
            if record is not None:
                return record
        raise StoreError(f"no thread of {self.url} holds a readable record of session {session_id}")

    def _current(self, thread: Any) -> SessionRecord | None:
        """The session record a thread holds, if the record names this thread.

        A fork's copy carries its source's metadata until it is written, and after ``/clear`` the
        old thread keeps the session's earlier record: neither names the thread that holds it.
        """
        record = self._record(thread)
        if record is None or not _same_uuid(str(thread["thread_id"]), thread_id(record.thread_id or record.session_id)):
            return None
        return record

    def _record(self, thread: Any) -> SessionRecord | None:
        raw = (thread.get("metadata") or {}).get(RECORD_KEY)
        if raw is None:
            return None
        try:
            record = SessionRecord.from_dict(raw)
        except StoreError:
            return None
        record.data = _shared_data(record.data)
        # The session's roots are the client's to give (session/load sends them): directories
        # written into a thread's metadata must not widen where the editor tools may write.
        record.additional_directories = []
        return record

    async def list(
        self, *, cwd: str | None = None, cursor: str | None = None, limit: int = 50
    ) -> tuple[list[SessionRecord], str | None]:
        offset = _decode(cursor) if cursor is not None else 0
        metadata: dict[str, Any] = {GRAPH_KEY: self.graph}
        if cwd is not None:
            metadata["cwd"] = cwd
        try:
            threads = await self.client.threads.search(
                metadata=metadata, limit=limit + 1, offset=offset, sort_by="updated_at", sort_order="desc"
            )
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc
        records: list[SessionRecord] = []
        seen: set[str] = set()
        for thread in threads[:limit]:
            record = self._current(thread)
            if record is not None and record.session_id not in seen:  # newest first: a /clear's new thread
                seen.add(record.session_id)
                records.append(record)
        next_cursor = _encode(offset + limit) if len(threads) > limit else None
        return records, next_cursor

    async def delete(self, session_id: str) -> None:
        """``threads.delete`` every thread of the session: its current one and those ``/clear`` left behind."""
        done: set[str] = set()
        try:
            while True:
                threads = await self.client.threads.search(metadata={SESSION_KEY: session_id}, limit=100)
                left = [str(t["thread_id"]) for t in threads if str(t["thread_id"]) not in done]
                if not left:
                    return
                for tid in left:
                    done.add(tid)
                    with contextlib.suppress(NotFoundError):  # deleted meanwhile (another process)
                        await self.client.threads.delete(tid)
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc

    async def fork_thread(self, source: str) -> str:
        """Copy a thread (``threads.copy``); returns the copy's id."""
        try:
            threads: Any = self.client.threads  # typed as returning None; the server answers the copy
            copied: Any = await threads.copy(thread_id(source))
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc
        return str(copied["thread_id"])

    async def aclose(self) -> None:
        return None


def _shared_data(data: dict[str, Any]) -> dict[str, Any]:
    """The plugin data that may live on the server: only langacp-remote's own (the context choices).

    Other plugins' data stays in the process. Whoever can write a thread's metadata (the server,
    its other clients) must not be able to hand this machine's permission policy remembered
    "always allow" answers, and nothing here can tell which plugin data is that harmless.
    """
    return {key: value for key, value in data.items() if key in SHARED_DATA}


def _encode(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode().rstrip("=")


def _decode(cursor: str) -> int:
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error) as exc:
        raise InvalidCursor(cursor) from exc
    offset = value.get("offset") if isinstance(value, dict) else None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidCursor(cursor)
    return offset
