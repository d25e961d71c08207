"""One ACP agent process driven from Python, on the SDK's client side (``ClientSideConnection``).

    async with AcpConnection(handler=RecordingHandler("activity.jsonl")) as conn:
        await conn.spawn("langacp", ["serve", "my_agent.py:agent"], cwd=tmp)
        await conn.initialize()
        info = await conn.new_session(tmp)
        result = await conn.prompt(info.session_id, "Say hello")   # .stop_reason, .text

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

from langacp.client.policy import PermissionPolicy
from langacp.client.prompt_turn import PromptResult, PromptStream, prompt_blocks, prompt_result
from langacp.client.router import CallbackRouter, Listener

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection
    from acp.schema import (
        ClientCapabilities,
        Implementation,
        InitializeResponse,
        ListSessionsResponse,
        LoadSessionResponse,
        NewSessionResponse,
        PromptResponse,
    )

# The ACP SDK (~1 s to import) is imported once the agent is spawned, so both start at once.

__all__ = [
    "STDIO_LIMIT",
    "AcpConnection",
    "AgentExited",
    "AgentNotReady",
    "PromptResult",
    "PromptStream",
    "prompt_blocks",
]

T = TypeVar("T")

STDIO_LIMIT = 50 * 1024 * 1024
"""The longest JSON-RPC line read from the agent."""
STDERR_LINES = 200
CANCEL_GRACE = 30.0
"""Seconds a new prompt waits for a cancelled turn of its session to end (the agent answers it first)."""


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


class AcpConnection:
    """A connection to one ACP agent: spawn, initialize, sessions, prompts, cancel, listeners.

    ``handler`` serves the agent's ``fs/*`` and ``terminal/*`` calls and sees every event
    (default: a :class:`~langacp.client.local.LocalHandler`); ``permission_policy`` answers
    permission requests (default: reject what no rule allows). Use it as an async context
    manager, or call :meth:`close`: no child process is left behind.
    """

    def __init__(
        self,
        handler: Any = None,
        permission_policy: PermissionPolicy | None = None,
        *,
        router: CallbackRouter | None = None,
        client_info: Implementation | None = None,
        stderr_lines: int = STDERR_LINES,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        self.router = router if router is not None else CallbackRouter(handler, permission_policy)
        self.client_info = client_info
        self.on_stderr = on_stderr
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self.command: list[str] = []
        self.cwd: str | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.init_response: InitializeResponse | None = None
        self.sessions: dict[str, str] = {}
        """Sessions opened or loaded here: id → cwd."""
        self._conn: ClientSideConnection | None = None
        self._exited: asyncio.Future[int] | None = None
        self._drain: asyncio.Task[None] | None = None
        self._turns: dict[str, asyncio.Future[PromptResponse]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop the agent was spawned on (its pipes belong to it)."""

    @property
    def handler(self) -> Any:
        return self.router.handler

    @property
    def policy(self) -> PermissionPolicy:
        return self.router.policy

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

    # -- protocol --------------------------------------------------------------------------------

    async def initialize(
        self,
        client_capabilities: ClientCapabilities | None = None,
        protocol_version: int = 1,
        timeout: float | None = 120.0,
    ) -> InitializeResponse:
        """``initialize``, declaring the handler's capabilities unless ``client_capabilities`` is given.

        An agent that does not answer within ``timeout`` seconds (it hangs, or is not an ACP
        agent) raises :class:`AgentNotReady`, with its stderr tail.
        """
        if self.client_info is None:
            from acp.schema import Implementation

            from langacp import __version__

            self.client_info = Implementation(name="langacp-client", title="langacp client", version=__version__)
        request = self._request(
            self.conn.initialize(
                protocol_version=protocol_version,
                client_capabilities=client_capabilities or self.router.client_capabilities,
                client_info=self.client_info,
            )
        )
        try:
            self.init_response = await asyncio.wait_for(request, timeout)
        except TimeoutError:
            raise AgentNotReady(timeout or 0, self.command, self.stderr_tail) from None
        return self.init_response

    def _opened(self, session_id: str, cwd: str, additional_directories: Sequence[str] | None) -> None:
        self.sessions[session_id] = cwd
        add = getattr(self.router.handler, "add_session", None)
        if add is not None:
            add(session_id, cwd, list(additional_directories or ()))

    async def new_session(
        self,
        cwd: str | Path,
        mcp_servers: Sequence[Any] | None = None,
        additional_directories: Sequence[str] | None = None,
    ) -> NewSessionResponse:
        """``session/new``: the response has ``session_id``, ``modes``, ``config_options``."""
        response = await self._request(
            self.conn.new_session(
                cwd=str(cwd),
                mcp_servers=list(mcp_servers or []),
                additional_directories=list(additional_directories) if additional_directories else None,
            )
        )
        self._opened(response.session_id, str(cwd), additional_directories)
        return response

    async def load_session(
        self,
        session_id: str,
        cwd: str | Path,
        mcp_servers: Sequence[Any] | None = None,
        additional_directories: Sequence[str] | None = None,
    ) -> LoadSessionResponse:
        """``session/load``: the agent replays the conversation as updates, then answers."""
        self._opened(session_id, str(cwd), additional_directories)  # before: the replay needs its roots
        try:
            return await self._request(
                self.conn.load_session(
                    cwd=str(cwd),
                    session_id=session_id,
                    mcp_servers=list(mcp_servers or []),
                    additional_directories=list(additional_directories) if additional_directories else None,
                )
            )
        except BaseException:
            self.sessions.pop(session_id, None)
            raise

    async def list_sessions(self, cwd: str | Path | None = None, cursor: str | None = None) -> ListSessionsResponse:
        """``session/list`` (of ``cwd`` if given)."""
        return await self._request(self.conn.list_sessions(cwd=str(cwd) if cwd is not None else None, cursor=cursor))

    async def set_mode(self, session_id: str, mode_id: str) -> Any:
        return await self._request(self.conn.set_session_mode(session_id=session_id, mode_id=mode_id))

    async def close_session(self, session_id: str) -> Any:
        self.sessions.pop(session_id, None)
        return await self._request(self.conn.close_session(session_id=session_id))

    def add_listener(self, listener: Listener, session_id: str | None = None) -> Callable[[], None]:
        """Call ``listener`` with each ``SessionNotification`` of ``session_id`` (or all); returns a remover."""
        return self.router.add_listener(listener, session_id)

    async def prompt(self, session_id: str, prompt: str | Sequence[Any]) -> PromptResult:
        """Send a prompt and wait for the turn to end. Cancelling the caller cancels the turn."""
        blocks = prompt_blocks(prompt)
        updates, remove = self.router.collect(session_id)
        on_prompt = getattr(self.router.handler, "on_prompt", None)
        if on_prompt is not None:
            on_prompt(session_id, blocks)
        try:
            previous = self._turns.get(session_id)
            if previous is not None and not previous.done():  # a cancelled turn still ending
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(previous), CANCEL_GRACE)
            turn = asyncio.ensure_future(self._request(self.conn.prompt(session_id=session_id, prompt=blocks)))
            self._turns[session_id] = turn
            try:
                response = await asyncio.shield(turn)
            except asyncio.CancelledError:
                if not turn.done() and self.running:
                    turn.add_done_callback(lambda done: self._ended_late(session_id, done))
                    with contextlib.suppress(Exception):
                        await asyncio.shield(self.cancel(session_id))
                raise
        finally:
            remove()
        result = prompt_result(response, updates)
        on_end = getattr(self.router.handler, "on_prompt_end", None)
        if on_end is not None:
            on_end(session_id, result.stop_reason)
        return result

    def _ended_late(self, session_id: str, turn: asyncio.Future[PromptResponse]) -> None:
        """A turn whose caller was cancelled ended: the handler still hears how."""
        if turn.cancelled() or turn.exception() is not None:
            return
        on_end = getattr(self.router.handler, "on_prompt_end", None)
        if on_end is not None:
            on_end(session_id, str(turn.result().stop_reason))

    def stream_prompt(self, session_id: str, prompt: str | Sequence[Any]) -> PromptStream:
        """Send a prompt; iterate over its ``SessionNotification`` objects as they arrive.

        Once the iteration ends, ``stream.result`` holds the :class:`PromptResult`.
        """
        return PromptStream(self, session_id, prompt)

    async def cancel(self, session_id: str) -> None:
        """``session/cancel``: the running prompt ends with stop reason ``cancelled``."""
        await self.conn.cancel(session_id=session_id)

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

    async def __aenter__(self) -> AcpConnection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
