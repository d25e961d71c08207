"""One ACP agent process driven from Python, on the SDK's client side (``ClientSideConnection``).

    async with AcpConnection(handler=RecordingHandler("activity.jsonl")) as conn:
        await conn.spawn("langacp", ["serve", "my_agent.py:agent"], cwd=tmp)
        await conn.initialize()
        info = await conn.new_session(tmp)
        result = await conn.prompt(info.session_id, "Say hello")   # .stop_reason, .text

``initialize`` asks for ACP v2 and falls back to v1 when the agent answers 1; the version is
an internal detail (:attr:`AcpConnection.protocol_version`): every method takes and returns the
same objects in both (see :mod:`langacp.client.v2`). The agent process itself is
:class:`~langacp.client.process.AgentProcess`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langacp.client.policy import PermissionPolicy
from langacp.client.process import STDIO_LIMIT, AgentExited, AgentNotReady, AgentProcess
from langacp.client.prompt_turn import PromptResult, PromptStream, prompt_blocks, prompt_result
from langacp.client.router import CallbackRouter, Listener
from langacp.client.v2 import V2Client, initialize_params, initialize_v1

if TYPE_CHECKING:
    from acp.schema import (
        ClientCapabilities,
        Implementation,
        InitializeResponse,
        ListSessionsResponse,
        LoadSessionResponse,
        NewSessionResponse,
        PromptResponse,
        SetSessionConfigOptionResponse,
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

STDERR_LINES = 200
CANCEL_GRACE = 30.0
"""Seconds a new prompt waits for a cancelled turn of its session to end (the agent answers it first)."""


class AcpConnection(AgentProcess):
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
        self._conn = None
        self._exited: asyncio.Future[int] | None = None
        self._drain: asyncio.Task[None] | None = None
        self._turns: dict[str, asyncio.Future[PromptResponse]] = {}
        self.v2: V2Client | None = None
        """The v2 side, once ``initialize`` settled on ACP v2 (``None``: v1)."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop the agent was spawned on (its pipes belong to it)."""

    @property
    def handler(self) -> Any:
        return self.router.handler

    @property
    def policy(self) -> PermissionPolicy:
        return self.router.policy

    @property
    def protocol_version(self) -> int | None:
        """The ACP version ``initialize`` settled on (``None`` before it)."""
        return None if self.init_response is None else (2 if self.v2 is not None else 1)

    # -- protocol --------------------------------------------------------------------------------

    async def initialize(
        self,
        client_capabilities: ClientCapabilities | None = None,
        protocol_version: int | None = None,
        timeout: float | None = 120.0,
    ) -> InitializeResponse:
        """``initialize``, declaring the handler's capabilities unless ``client_capabilities`` is given.

        ``protocol_version`` asked for: by default 2 (an agent that answers 1 is spoken to in v1),
        or 1 when the handler serves the agent's ``fs`` / ``terminal`` calls, which only v1 has.
        An agent that does not answer within ``timeout`` seconds (it hangs, or is not an ACP
        agent) raises :class:`AgentNotReady`, with its stderr tail.
        """
        if self.client_info is None:
            from acp.schema import Implementation

            from langacp import __version__

            self.client_info = Implementation(name="langacp-client", title="langacp client", version=__version__)
        capabilities = client_capabilities or self.router.client_capabilities
        if protocol_version is None:
            serves = capabilities.terminal or (
                capabilities.fs and (capabilities.fs.read_text_file or capabilities.fs.write_text_file)
            )
            protocol_version = 1 if serves else 2
        try:
            self.init_response = await asyncio.wait_for(self._initialize(capabilities, protocol_version), timeout)
        except TimeoutError:
            raise AgentNotReady(timeout or 0, self.command, self.stderr_tail) from None
        return self.init_response

    async def _initialize(self, capabilities: ClientCapabilities, protocol_version: int) -> InitializeResponse:
        if protocol_version < 2:
            return await self._request(
                self.conn.initialize(
                    protocol_version=protocol_version, client_capabilities=capabilities, client_info=self.client_info
                )
            )
        from acp.schema import InitializeResponse

        from langacp.compat.sdk import route_incoming, sdk_connection, wrap_request_runner

        params = initialize_params(protocol_version, capabilities, self.client_info)
        result = await self._request(sdk_connection(self.conn).send_request("initialize", params))
        if (
            isinstance(result, dict)
            and isinstance(result.get("protocolVersion"), int)
            and result["protocolVersion"] >= 2
        ):
            self.v2 = V2Client(sdk_connection(self.conn), self.router, result)
            route_incoming(self.conn, self.v2.handle)
            wrap_request_runner(self.conn, self.v2.request_runner)
            return initialize_v1(result)
        return InitializeResponse.model_validate(result)  # the agent speaks v1: the SDK carries on

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
        if self.v2 is not None:
            response = await self._request(
                self.v2.new_session(str(cwd), list(mcp_servers or []), additional_directories)
            )
            self._opened(response.session_id, str(cwd), additional_directories)
            return response
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
        """``session/load``: the agent replays the conversation as updates, then answers.

        With ACP v2: ``session/resume`` replaying from the start (the response has no ``modes``
        unless the session has a mode config option).
        """
        self._opened(session_id, str(cwd), additional_directories)  # before: the replay needs its roots
        try:
            if self.v2 is not None:
                servers = list(mcp_servers or [])
                return await self._request(self.v2.resume(session_id, str(cwd), servers, additional_directories))
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
        if self.v2 is not None:
            return await self._request(self.v2.list_sessions(str(cwd) if cwd is not None else None, cursor))
        return await self._request(self.conn.list_sessions(cwd=str(cwd) if cwd is not None else None, cursor=cursor))

    async def set_mode(self, session_id: str, mode_id: str) -> Any:
        """``session/set_mode``; with ACP v2, which has no modes, the session's mode config option."""
        if self.v2 is not None:
            return await self._request(self.v2.set_mode(session_id, mode_id))
        return await self._request(self.conn.set_session_mode(session_id=session_id, mode_id=mode_id))

    async def set_config_option(
        self, session_id: str, config_id: str, value: str | bool
    ) -> SetSessionConfigOptionResponse:
        """``session/set_config_option``: a select option's value id, or a boolean; the response has every option."""
        if self.v2 is not None:
            return await self._request(self.v2.set_config_option(session_id, config_id, value))
        return await self._request(self.conn.set_config_option(config_id=config_id, session_id=session_id, value=value))

    async def authenticate(self, method_id: str) -> Any:
        """Log in with one of ``init_response.auth_methods`` (``authenticate``; ACP v2: ``auth/login``)."""
        if self.v2 is not None:
            return await self._request(self.v2.login(method_id))
        return await self._request(self.conn.authenticate(method_id=method_id))

    async def logout(self) -> Any:
        """``auth/logout`` (ACP v2; a v1 agent answers that the method is not found)."""
        if self.v2 is not None:
            return await self._request(self.v2.logout())
        from langacp.compat.sdk import sdk_connection

        return await self._request(sdk_connection(self.conn).send_request("logout", {}))

    async def close_session(self, session_id: str) -> Any:
        self.sessions.pop(session_id, None)
        if self.v2 is not None:
            return await self._request(self.v2.close_session(session_id))
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
            call = (
                self.v2.prompt(session_id, blocks)
                if self.v2 is not None
                else self.conn.prompt(session_id=session_id, prompt=blocks)
            )
            turn = asyncio.ensure_future(self._request(call))
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
        if self.v2 is not None:
            await self.v2.cancel(session_id)
            return
        await self.conn.cancel(session_id=session_id)

    def cancellable_tool_calls(self, session_id: str) -> list[str]:
        """The session's running tool calls that can be cancelled alone (ACP v2; none with v1)."""
        return self.v2.fold(session_id).running_cancellable() if self.v2 is not None else []

    async def cancel_tool_call(self, session_id: str, tool_call_id: str) -> None:
        """``tool_call/cancel`` (ACP v2): stop one tool call; the turn goes on. The agent confirms
        with the tool call's final status. With v1 there is no such request (``RequestError``)."""
        if self.v2 is None:
            from acp import RequestError

            raise RequestError.method_not_found("tool_call/cancel")
        await self._request(self.v2.cancel_tool_call(session_id, tool_call_id))

    async def __aenter__(self) -> AcpConnection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
