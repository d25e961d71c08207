"""Leases: one process serves a session at a time.

Two agent processes serving one session would both write its thread, and LangGraph keeps only
one branch: turns would vanish. A process that opens a session takes its lease (a row in
``langacp_leases``), renews it while the session is open and frees it when the session closes.
A lease whose holder died is taken over: at once when the holder ran on this machine (its pid
is gone), else when it expires (``LEASE_TTL`` seconds after the holder's last renewal).
:mod:`langacp.stores` re-exports every name.
"""

from __future__ import annotations

import logging
from typing import Any

_log = logging.getLogger("langacp.stores")

__all__ = [
    "LEASE_SCHEMA",
    "LEASE_TTL",
    "Leases",
    "SessionBusy",
    "describe_owner",
    "holder_is_gone",
    "lease_owner",
    "lease_statements",
]

LEASE_TTL = 30.0
"""Seconds a lease lasts without renewal; the agent renews every third of it."""

LEASE_SCHEMA = """CREATE TABLE IF NOT EXISTS langacp_leases (
    session_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL
)"""


def lease_statements(mark: str = "?") -> dict[str, str]:
    """The SQL the SQL drivers share for leases (``mark``: the driver's parameter placeholder)."""
    return {
        # Take it if it is free, ours or expired; then read who holds it.
        "take": "INSERT INTO langacp_leases (session_id, owner, expires_at) "
        f"VALUES ({mark}, {mark}, {mark}) ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, "
        "expires_at = excluded.expires_at WHERE langacp_leases.owner = excluded.owner "
        f"OR langacp_leases.expires_at < {mark}",
        "holder": f"SELECT owner FROM langacp_leases WHERE session_id = {mark}",
        "drop_dead": f"DELETE FROM langacp_leases WHERE session_id = {mark} AND owner = {mark}",
        "renew": f"UPDATE langacp_leases SET expires_at = {mark} WHERE owner = {mark}",
        "release": f"DELETE FROM langacp_leases WHERE session_id = {mark} AND owner = {mark}",
    }


_owner: str | None = None


def lease_owner() -> str:
    """This process as a lease holder: ``host:pid:token``."""
    global _owner
    if _owner is None:
        import os
        import socket
        import uuid

        _owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    return _owner


def holder_is_gone(owner: str) -> bool:
    """Whether the process holding a lease is known to be dead (it ran on this machine and its pid is gone)."""
    import os
    import socket

    parts = owner.split(":")
    if len(parts) < 3 or not parts[-2].isdigit():
        return False
    host = ":".join(parts[:-2])
    if host != socket.gethostname():
        return False
    pid = int(parts[-2])
    if pid == os.getpid():
        return owner != lease_owner()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def describe_owner(owner: str) -> str:
    """``pid 123 on host``, for an error message."""
    parts = owner.split(":")
    if len(parts) >= 3:
        return f"pid {parts[-2]} on {':'.join(parts[:-2])}"
    return owner


class SessionBusy(Exception):
    """Another process serves this session (it holds the session's lease)."""


class Leases:
    """The leases of the sessions this process has open, renewed in the background."""

    def __init__(self, ttl: float = LEASE_TTL) -> None:
        self.ttl = ttl
        self.owner = lease_owner()
        self._held: set[str] = set()
        self._renewer: Any = None

    async def take(self, store: Any, session_id: str) -> None:
        """Take ``session_id``'s lease; :class:`SessionBusy` if another live process holds it."""
        acquire = getattr(store, "acquire", None)
        if acquire is None:
            return  # a store one process owns (memory)
        self._held.add(session_id)  # before it is asked: a take cancelled half-way is given back by free()
        holder = await acquire(session_id, self.owner, self.ttl)
        if holder is not None:
            self._held.discard(session_id)
            raise SessionBusy(
                f"session {session_id} is open in another langacp process ({describe_owner(holder)}); "
                "close it there (or end that process) and try again"
            )
        if self._renewer is None:
            import asyncio

            self._renewer = asyncio.get_running_loop().create_task(self._renew(store), name="langacp.leases")

    async def free(self, store: Any, session_id: str) -> None:
        """Give ``session_id``'s lease back (a failure is logged: the lease then expires)."""
        if session_id not in self._held:
            return
        self._held.discard(session_id)
        try:
            await store.release(session_id, self.owner)
        except Exception as exc:  # noqa: BLE001 - the store may be gone; the lease expires
            _log.warning("langacp: cannot release the lease of session %s: %s", session_id, exc)

    async def _renew(self, store: Any) -> None:
        import asyncio

        while True:
            await asyncio.sleep(self.ttl / 3)
            if not self._held:
                continue
            try:
                await store.renew(self.owner, self.ttl)
            except Exception as exc:  # noqa: BLE001 - retried at the next tick
                _log.warning("langacp: cannot renew session leases: %s", exc)

    def stop(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            self._renewer = None
