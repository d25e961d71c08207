"""Let an editor (any ACP client) attach to an agent a :class:`ConnectionManager` already runs.

    gateway = Gateway(manager)
    path = await gateway.open("helper")        # a Unix socket, only for this user

The editor runs ``langacp attach helper`` as its agent command (it pipes stdin/stdout to the
socket). To the editor the gateway is the agent: ``initialize`` answers what the agent
answered, ``session/load`` of a session that is running attaches to it (lease mode: no
replay), every other request is forwarded. While attached, the editor sees every update of
the connection's sessions, answers the permission requests no policy rule decides and serves
the fs / terminal calls it declared; when it detaches, the local handler and policy take over.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from langacp.client.connection import AcpConnection, prompt_blocks
from langacp.client.manager import ConnectionManager

__all__ = ["Gateway", "attach", "socket_dir", "socket_path"]

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def socket_dir() -> Path:
    """``$XDG_RUNTIME_DIR/langacp``, else ``/tmp/langacp-<uid>``."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return Path(runtime) / "langacp" if runtime else Path(tempfile.gettempdir()) / f"langacp-{os.getuid()}"


def socket_path(name: str, directory: str | Path | None = None) -> Path:
    """The socket of connection ``name`` (in ``directory``, default :func:`socket_dir`)."""
    if not _NAME.match(name):
        raise ValueError(f"not a connection name: {name!r} (letters, digits, '_', '.', '-')")
    return (Path(directory) if directory is not None else socket_dir()) / f"{name}.sock"


class _Upstream:
    """The agent an attached editor talks to: answers for the real agent behind ``conn``."""

    def __init__(self, conn: AcpConnection) -> None:
        self.conn = conn
        self.client: Any = None

    def on_connect(self, client: Any) -> None:
        self.client = client

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, **_: Any) -> Any:
        from acp.schema import ClientCapabilities

        self.conn.router.attach(self.client, client_capabilities or ClientCapabilities())
        init = self.conn.init_response or await self.conn.initialize()
        return init.model_copy(update={"protocol_version": 1})  # the editor speaks v1 here, whatever the agent does

    async def new_session(self, cwd: str, mcp_servers: Any = None, additional_directories: Any = None, **_: Any) -> Any:
        return await self.conn.new_session(cwd, mcp_servers, additional_directories)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, additional_directories: Any = None, **_: Any
    ) -> Any:
        from acp.schema import LoadSessionResponse

        if session_id in self.conn.sessions:  # running here: attach to it as it is
            return LoadSessionResponse()
        return await self.conn.load_session(session_id, cwd, mcp_servers, additional_directories)

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> Any:
        return await self.conn.list_sessions(cwd, cursor)

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> Any:
        return (await self.conn.prompt(session_id, prompt_blocks(prompt))).response

    async def cancel(self, session_id: str, **_: Any) -> None:
        await self.conn.cancel(session_id)

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> Any:
        return await self.conn.set_mode(session_id, mode_id)

    async def set_config_option(self, session_id: str, config_id: str, value: Any, **_: Any) -> Any:
        return await self.conn.set_config_option(session_id, config_id, value)

    async def authenticate(self, method_id: str, **_: Any) -> Any:
        return await self.conn.authenticate(method_id)

    async def close_session(self, session_id: str, **_: Any) -> Any:
        return await self.conn.close_session(session_id)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.conn.conn.ext_method(method, params)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        await self.conn.conn.ext_notification(method, params)


class Gateway:
    """Unix-socket endpoints through which an editor attaches to the manager's connections."""

    def __init__(self, manager: ConnectionManager, directory: str | Path | None = None) -> None:
        self.manager = manager
        self.directory = Path(directory) if directory is not None else None
        self.servers: dict[str, tuple[asyncio.AbstractServer, Path]] = {}
        self._clients: set[asyncio.Task[None]] = set()

    def path(self, name: str) -> Path:
        return socket_path(name, self.directory)

    async def open(self, name: str) -> Path:
        """Accept editors for connection ``name`` (which the manager must run); returns the socket path."""
        self.manager.get(name)
        path = self.path(name)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a socket left by a process that died

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            self._clients.add(task)
            try:
                await self._serve(name, reader, writer)
            finally:
                self._clients.discard(task)

        old_umask = os.umask(0o077)  # the socket is this user's only
        try:
            server = await asyncio.start_unix_server(serve, path=str(path), limit=50 * 1024 * 1024)
        finally:
            os.umask(old_umask)
        self.servers[name] = (server, path)
        return path

    async def _serve(self, name: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from acp import run_agent

        conn = self.manager.get(name)
        upstream = _Upstream(conn)
        try:
            await run_agent(upstream, writer, reader, use_unstable_protocol=True)  # type: ignore[arg-type]
        finally:
            conn.router.detach(upstream.client)
            with contextlib.suppress(Exception):
                writer.close()

    async def close(self, name: str | None = None) -> None:
        """Stop accepting editors (for ``name``, or all) and detach those attached."""
        for key in [name] if name is not None else list(self.servers):
            entry = self.servers.pop(key, None)
            if entry is None:
                continue
            server, path = entry
            server.close()
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        if name is None:
            for task in list(self._clients):
                task.cancel()
            await asyncio.gather(*self._clients, return_exceptions=True)

    async def __aenter__(self) -> Gateway:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def attach(path: Path) -> int:
    """``langacp attach``: pipe our stdin/stdout to the gateway socket at ``path`` until either side closes."""
    import sys

    try:
        sock_reader, sock_writer = await asyncio.open_unix_connection(str(path), limit=50 * 1024 * 1024)
    except OSError as exc:
        print(f"langacp attach: no gateway at {path}: {exc}", file=sys.stderr)
        return 1
    from acp.stdio import stdio_streams

    stdin, stdout = await stdio_streams(limit=50 * 1024 * 1024)

    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        with contextlib.suppress(Exception):
            sink.close()

    tasks = [asyncio.ensure_future(pump(stdin, sock_writer)), asyncio.ensure_future(pump(sock_reader, stdout))]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    return 0
