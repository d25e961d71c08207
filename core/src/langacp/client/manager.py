"""Named connections to ACP agents: connect (or reuse), get, disconnect, dispose of them all."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langacp.client.connection import AcpConnection
from langacp.client.policy import PermissionPolicy

__all__ = ["ConnectionManager"]


class ConnectionManager:
    """Keeps one initialized :class:`AcpConnection` per name.

    ``connect`` spawns and initializes the agent the first time a name is used and returns
    the live connection on later calls (a dead one is replaced).
    """

    def __init__(self) -> None:
        self.connections: dict[str, AcpConnection] = {}
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}

    async def connect(
        self,
        name: str,
        *,
        command: str,
        args: Sequence[str] = (),
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        handler: Any = None,
        permission_policy: PermissionPolicy | None = None,
        startup_timeout: float | None = 120.0,
        protocol_version: int | None = None,
    ) -> AcpConnection:
        """The connection called ``name``: reused if it is running, else spawned and initialized.

        The first call's ``handler`` and ``permission_policy`` stay with the connection;
        ``protocol_version`` is what ``initialize`` asks for (see :meth:`AcpConnection.initialize`).
        """
        loop = asyncio.get_running_loop()
        lock = self._locks.setdefault((name, id(loop)), asyncio.Lock())
        async with lock:
            existing = self.connections.get(name)
            if existing is not None and existing.running and existing.loop is loop:
                return existing
            if existing is not None:
                if existing.loop is loop:
                    await existing.close()
                else:  # spawned under an event loop that has ended (another asyncio.run): its pipes are dead
                    existing.kill()
            conn = AcpConnection(handler=handler, permission_policy=permission_policy)
            try:
                await conn.spawn(command, args, cwd=cwd, env=env)
                await conn.initialize(timeout=startup_timeout, protocol_version=protocol_version)
            except BaseException:
                await conn.close()
                raise
            self.connections[name] = conn
            return conn

    def kill_all(self) -> None:
        """End every agent process at once, without the event loop (at interpreter exit)."""
        for conn in self.connections.values():
            conn.kill()
        self.connections.clear()

    def get(self, name: str) -> AcpConnection:
        """The connection called ``name`` (``KeyError`` if there is none)."""
        try:
            return self.connections[name]
        except KeyError:
            raise KeyError(f"no ACP connection named {name!r}") from None

    def names(self) -> list[str]:
        return list(self.connections)

    async def disconnect(self, name: str) -> None:
        """Close the connection called ``name`` and end its agent (nothing if there is none)."""
        conn = self.connections.pop(name, None)
        if conn is not None:
            await conn.close()

    async def dispose_all(self) -> None:
        """Close every connection; no agent process is left."""
        conns = list(self.connections.values())
        self.connections.clear()
        await asyncio.gather(*(conn.close() for conn in conns), return_exceptions=True)

    async def __aenter__(self) -> ConnectionManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.dispose_all()
