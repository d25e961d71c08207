"""The MCP servers of one ACP session, each held open by its own task until the session closes.

An MCP client session is an async context manager bound to the task that entered it (anyio
task groups inside), so each server gets a task that opens it, lists its tools, waits for
the close signal and leaves the context in the same task. Servers start concurrently; one
that has not answered within the timeout is abandoned (its process is stopped) and the
session opens without it. One persistent ``ClientSession`` per server, not a subprocess per
tool call.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from langchain_core.tools import BaseTool
from langchain_mcp_adapters.callbacks import CallbackContext, Callbacks
from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langchain_mcp_adapters.sessions import create_session
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, ElicitResult, InitializeResult

from langacp.api import watching_new_groups
from langacp_mcp.config import ServerSpec, base_environment
from langacp_mcp.content import for_the_model

__all__ = [
    "CLOSE_TIMEOUT",
    "ServerConnection",
    "SessionServers",
    "annotated_kind",
    "describe_error",
    "qualified_name",
    "tool_prefix",
]

log = logging.getLogger("langacp.mcp")

Asker = Callable[[str, Any, "str | None"], Awaitable[Any]]
"""Puts a server's question to the user: ``(message, form schema, url)`` → a ``langacp.api.ElicitResult``."""

CLOSE_TIMEOUT = 5.0
"""Longest wait for servers to stop. The MCP SDK closes a stdio server's stdin, waits 2 s for it
to exit, then terminates its process group (SIGTERM, then SIGKILL 2 s later)."""

_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
"""Tool names providers accept: ``^[a-zA-Z0-9_-]{1,64}$``."""


def qualified_name(server: str, tool: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``<server>__<tool>`` made acceptable to model providers, unique among ``taken``."""
    name = _NOT_ALLOWED.sub("_", f"{server}__{tool}")
    if len(name) > MAX_NAME or name in taken:
        digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
    return name


def tool_prefix(server: str) -> str:
    """What the qualified names of a server's tools start with."""
    return _NOT_ALLOWED.sub("_", server) + "__"


def annotated_kind(annotations: Mapping[str, Any], *, trusted: bool) -> str:
    """The ACP kind of an MCP tool from its annotations (never from its name).

    ``destructiveHint`` → ``delete``; a ``readOnlyHint`` → ``read`` only when the user trusts
    the server's annotations (``trusted``: ``[mcp] trust_annotations`` in the user's file),
    else ``other``; a tool that says it is not read-only (or not destructive) → ``edit``; no
    annotation → ``other``. ``other`` asks in the interactive mode and is refused in the
    read-only one. The MCP spec calls annotations hints: a server's claim that a tool only
    reads never makes it run unasked unless the user said so, and the user's pins win.
    """
    read_only, destructive = annotations.get("readOnlyHint"), annotations.get("destructiveHint")
    if destructive is True:
        return "delete"
    if read_only is True:
        return "read" if trusted else "other"
    if read_only is False or destructive is False:
        return "edit"
    return "other"


def describe_error(exc: BaseException) -> str:
    """A one-line reason, looking inside the exception groups anyio wraps errors in."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ServerConnection:
    """One MCP server of one session: started by :meth:`start`, stopped by :meth:`stop`."""

    def __init__(
        self, spec: ServerSpec, cwd: str, results: dict[str, CallToolResult], ask: Asker | None = None
    ) -> None:
        self.spec = spec
        self.cwd = cwd
        self._ask = ask
        self.tools: list[BaseTool] = []
        self.instructions: str | None = None
        """What the server asks the model to know about its tools (MCP ``initialize`` result)."""
        self._results = results
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def ready(self) -> asyncio.Future[None]:
        """Done once the server is connected and its tools listed (or it failed)."""
        return self._ready

    @property
    def connected(self) -> bool:
        """The server started and listed its tools."""
        return self._ready.done() and not self._ready.cancelled() and self._ready.exception() is None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"langacp.mcp.{self.spec.name}")

    async def _run(self) -> None:
        try:
            async with self._connect() as (session, initialized):
                self.instructions = (initialized.instructions or "").strip() or None
                self.tools = await load_mcp_tools(
                    session, tool_interceptors=[self._keep_result], server_name=self.spec.name
                )
                self._ready.set_result(None)
                await self._stop.wait()
        except asyncio.CancelledError:
            if not self._ready.done():
                self._ready.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - a server's failure is reported, never raised
            if not self._ready.done():
                self._ready.set_exception(exc)
            elif not self._stop.is_set():
                log.warning("langacp-mcp: MCP server %r stopped: %s", self.spec.name, describe_error(exc))

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[tuple[ClientSession, InitializeResult]]:
        """The server's MCP session, initialized."""
        spec = self.spec
        if spec.transport == "stdio":
            # Looked at in a worker thread: a session's directory on a hung file system holds up this server only.
            usable = spec.cwd is None and await asyncio.to_thread(os.path.isdir, self.cwd)
            params = StdioServerParameters(
                command=spec.command,
                args=list(spec.args),
                env={**base_environment(), **spec.env},
                cwd=spec.cwd or (self.cwd if usable else None),
            )
            # The MCP SDK starts the server in a session of its own without telling its pid: the
            # core's watchdog learns the new group, so a kill -9 of the agent stops the server too.
            with watching_new_groups([spec.command, *spec.args]) as groups:
                async with (
                    stdio_client(params) as (read, write),
                    ClientSession(read, write, elicitation_callback=self._elicit) as session,
                ):
                    await groups.settle()  # a server still in its exec has no command line yet: wait for it
                    initialized = await session.initialize()
                    if not groups.groups:  # slower than settle() on a busy machine: it has answered now
                        groups.collect()
                    yield session, initialized
        else:
            transport = "streamable_http" if spec.transport == "http" else "sse"
            connection: Any = {"transport": transport, "url": spec.url, "headers": dict(spec.headers) or None}
            callbacks = Callbacks(on_elicitation=self._elicit_through_adapters).to_mcp_format(
                context=CallbackContext(server_name=spec.name)
            )
            async with create_session(connection, mcp_callbacks=callbacks) as session:
                yield session, await session.initialize()

    async def _elicit_through_adapters(self, mcp_context: Any, params: Any, context: Any) -> ElicitResult:
        return await self._elicit(mcp_context, params)

    async def _elicit(self, context: Any, params: Any) -> ElicitResult:
        """The server asks the user (MCP ``elicitation/create``): an editor form, or a page to open.

        Declined when the client cannot be asked (no forms, no turn of the session running) and
        when the server's form or URL is one langacp does not send (not ACP's restricted schema,
        not ``https:``); the answer goes back checked against the schema the server sent.
        """
        message = str(getattr(params, "message", "") or f"The MCP server {self.spec.name!r} asks:")
        url = getattr(params, "url", None)
        schema = None if url is not None else getattr(params, "requestedSchema", None)
        if self._ask is None:
            return ElicitResult(action="decline")
        try:
            answer = await self._ask(f"{self.spec.name}: {message}", schema, url)
        except ValueError as exc:  # not a form or URL we send, or a client's answer that does not fit
            log.warning("langacp-mcp: MCP server %r asked the user; declined: %s", self.spec.name, exc)
            return ElicitResult(action="decline")
        if answer.action == "accept":
            return ElicitResult(action="accept", content=None if url is not None else answer.content)
        return ElicitResult(action="cancel" if answer.action == "cancel" else "decline")

    async def _keep_result(
        self, request: MCPToolCallRequest, handler: Callable[[MCPToolCallRequest], Awaitable[Any]]
    ) -> Any:
        """Keep the raw MCP result for the editor (by tool call id); give the model what it can read."""
        result = await handler(request)
        if isinstance(result, CallToolResult):
            call_id = getattr(request.runtime, "tool_call_id", None)
            if isinstance(call_id, str) and call_id:
                self._results[call_id] = result
            return for_the_model(result)
        return result

    def stop(self) -> asyncio.Task[None] | None:
        """Ask the server to stop (a server still starting is cancelled); returns its task."""
        self._stop.set()
        if self._task is not None and not self._ready.done():
            self._task.cancel()
        return self._task


class SessionServers:
    """Every MCP server of one ACP session, their tools under qualified names, their last results."""

    def __init__(self) -> None:
        self.connections: list[ServerConnection] = []
        self.results: dict[str, CallToolResult] = {}
        """Raw MCP results by tool call id, until the result is shown to the editor."""
        self.names: dict[str, tuple[str, str, str | None]] = {}
        """Qualified tool name → (server, MCP tool name, MCP title)."""
        self.annotations: dict[str, dict[str, Any]] = {}
        """Qualified tool name → its MCP annotations (``readOnlyHint``, ``destructiveHint``, …): hints."""
        self.sources: dict[str, str] = {}
        """Qualified tool name → where its server was configured (``client`` or a file's path)."""
        self.tools: list[BaseTool] = []
        self.closed = False

    async def connect(
        self, specs: Sequence[ServerSpec], cwd: str, timeout: float, ask: Asker | None = None
    ) -> list[str]:
        """Start every server at once; wait up to ``timeout`` s. Returns a message per failed server.

        ``ask`` puts a server's questions to the user (``SessionContext.elicit``); without it they are declined.
        """
        connections = [ServerConnection(spec, cwd, self.results, ask) for spec in specs]
        self.connections.extend(connections)
        for connection in connections:
            connection.start()
        if connections:
            await asyncio.wait([c.ready for c in connections], timeout=timeout)
        failures: list[str] = []
        for connection in connections:
            name = connection.spec.name
            if not connection.ready.done():
                connection.stop()
                failures.append(f"MCP server '{name}' did not start within {timeout:g} s")
            elif connection.ready.cancelled():
                failures.append(f"MCP server '{name}' was stopped while starting")
            elif (error := connection.ready.exception()) is not None:
                failures.append(f"MCP server '{name}' failed to start: {describe_error(error)}")
            else:
                self._add_tools(connection)
        return failures

    def _add_tools(self, connection: ServerConnection) -> None:
        server = connection.spec.name
        for tool in connection.tools:
            original = tool.name
            qualified = qualified_name(server, original, frozenset(self.names))
            metadata = tool.metadata or {}
            title = metadata.get("title") if isinstance(metadata.get("title"), str) else None
            tool.name = qualified
            tool.metadata = {**metadata, "mcp_server": server}  # how langacp.lib.load_mcp_tools finds them
            self.names[qualified] = (server, original, title)
            self.annotations[qualified] = dict(metadata)
            self.sources[qualified] = connection.spec.source
            self.tools.append(tool)

    async def aclose(self) -> None:
        """Stop every server and wait (bounded) until they are gone."""
        self.closed = True
        tasks = [t for t in (c.stop() for c in self.connections) if t is not None and not t.done()]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=CLOSE_TIMEOUT)
            for task in pending:
                log.warning("langacp-mcp: an MCP server did not stop within %g s", CLOSE_TIMEOUT)
                task.cancel()
        self.results.clear()
