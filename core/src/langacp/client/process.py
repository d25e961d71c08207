"""The agent process under an :class:`~langacp.client.connection.AcpConnection`: spawn, stderr, exit, kill.

The agent runs in its own process group (a terminal's Ctrl-C reaches only us; closing kills
whatever it started). Its stderr is read as it comes (an unread pipe blocks a chatty agent)
and its last lines are kept, to be shown in :class:`AgentExited`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

    from langacp.client.router import CallbackRouter

__all__ = ["STDIO_LIMIT", "AgentExited", "AgentNotReady", "AgentProcess"]

T = TypeVar("T")

STDIO_LIMIT = 50 * 1024 * 1024
"""The longest JSON-RPC line read from the agent."""


class AgentExited(ConnectionError):
    """The agent process ended (or closed its stdout) while we waited for it."""

    def __init__(self, returncode: int | None, command: Sequence[str], stderr_tail: Sequence[str]) -> None:
        self.returncode = returncode
        self.command = list(command)
        self.stderr_tail = list(stderr_tail)
        tail = "".join(f"\n  agent: {line}" for line in self.stderr_tail[-20:])
        super().__init__(f"the agent exited (code {returncode}): {' '.join(self.command)}{tail}")


class AgentNotReady(TimeoutError):
    """The agent did not answer ``initialize`` in time."""

    def __init__(self, timeout: float, command: Sequence[str], stderr_tail: Sequence[str]) -> None:
        self.command = list(command)
        self.stderr_tail = list(stderr_tail)
        tail = "".join(f"\n  agent: {line}" for line in self.stderr_tail[-20:])
        super().__init__(f"the agent did not answer initialize within {timeout:g} s: {' '.join(self.command)}{tail}")


class AgentProcess:
    """One spawned agent and the SDK connection over its pipes (the base of ``AcpConnection``)."""

    router: CallbackRouter
    on_stderr: Callable[[str], None] | None
    stderr_tail: collections.deque[str]
    command: list[str]
    cwd: str | None
    process: asyncio.subprocess.Process | None
    loop: asyncio.AbstractEventLoop | None
    _conn: ClientSideConnection | None
    _exited: asyncio.Future[int] | None
    _drain: asyncio.Task[None] | None

    @property
    def conn(self) -> ClientSideConnection:
        """The SDK connection (for what this class does not wrap)."""
        if self._conn is None:
            raise RuntimeError("not connected: call spawn() first")
        return self._conn

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    # -- process ---------------------------------------------------------------------------------

    async def spawn(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """Start ``command args`` (our environment updated with ``env``) and connect to it."""
        if self.process is not None:
            raise RuntimeError("this connection already spawned an agent")
        self.command = [command, *args]
        self.cwd = str(cwd) if cwd is not None else None
        self.loop = asyncio.get_running_loop()
        self.process = await asyncio.create_subprocess_exec(
            command,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.cwd,
            env={**os.environ, **(env or {})},
            limit=STDIO_LIMIT,
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._exited = asyncio.ensure_future(self.process.wait())
        self._drain = asyncio.ensure_future(self._drain_stderr())
        from acp.client.connection import ClientSideConnection

        self._conn = ClientSideConnection(
            self.router,  # type: ignore[arg-type] # an acp.Client by protocol
            self.process.stdin,
            self.process.stdout,
            use_unstable_protocol=True,
        )

    async def _drain_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        pending = b""
        while data := await self.process.stderr.read(65536):
            *lines, pending = (pending + data).split(b"\n")
            for raw in lines:
                self._stderr_line(raw.decode(errors="replace"))
        if pending:
            self._stderr_line(pending.decode(errors="replace"))

    def _stderr_line(self, line: str) -> None:
        self.stderr_tail.append(line)
        if self.on_stderr is not None:
            self.on_stderr(line)

    async def _request(self, call: Awaitable[T]) -> T:
        """Await an ACP request; :class:`AgentExited` (with the stderr tail) if the agent dies first."""
        exited = self._exited
        if exited is None:
            raise RuntimeError("not connected: call spawn() first")
        task = asyncio.ensure_future(call)
        waiting: list[asyncio.Future[Any]] = [task, exited]
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if not task.done():
            task.cancel()
            await self._exit_report()
            raise self._exit_error()
        try:
            return task.result()
        except ConnectionError as exc:  # the pipe closed before we saw the exit
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(exited), 2.0)
            await self._exit_report()
            raise self._exit_error() from exc

    async def _exit_report(self) -> None:
        if self._drain is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._drain), 2.0)

    def _exit_error(self) -> AgentExited:
        code = self.process.returncode if self.process is not None else None
        return AgentExited(code, self.command, self.stderr_tail)

    # -- shutdown --------------------------------------------------------------------------------

    async def close(self) -> None:
        """Close the connection and end the agent and everything it started (its process group)."""
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._conn.close(), 1.0)
        process = self.process
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(Exception):
                    process.stdin.close()
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None and process.returncode is None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(process.pid, sig)
                try:
                    await asyncio.wait_for(asyncio.shield(process.wait()), 2.0)
                    break
                except TimeoutError:
                    continue
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # what the agent itself started
        if self._drain is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._drain, 1.0)
        closer = getattr(self.router.handler, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()

    def kill(self) -> None:
        """End the agent's process group at once, without the event loop (e.g. the loop is gone)."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
