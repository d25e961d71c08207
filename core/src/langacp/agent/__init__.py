"""The ACP agent: session lifecycle on the official SDK, everything else through plugins.

:class:`LangacpAgent` is the class the SDK calls: a plain class with the SDK's snake_case
methods (not a subclass of ``acp.Agent``, so a method we do not offer answers -32601). Keys of
``_meta`` arrive as extra keyword arguments: they are ignored, never trusted. Each method
hands over to the part that does the work:

- :mod:`~langacp.agent.handshake`: ``initialize``, ``authenticate`` and ``logout``;
- :mod:`~langacp.agent.sessions`: ``session/new``, ``load``, ``resume``, ``fork``, ``list``, ``close``, ``delete``;
- :mod:`~langacp.agent.prompting`: ``session/prompt`` (slash commands, turns) and ``session/cancel``;
- :mod:`~langacp.agent.settings`: ``session/set_mode`` and ``session/set_config_option``;
- :mod:`~langacp.agent.registry`: the live sessions (open, restore, save, close);
- :mod:`~langacp.agent.live_session`: one live session (its graph, outbox, running turn);
- :mod:`~langacp.agent.loader`: the target and the session store, loaded in the background;
- :mod:`~langacp.agent.responses`: the one builder of the session responses.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

from acp import RequestError
from acp.schema import (
    ForkSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from langacp import protocol, tracing
from langacp.agent import handshake
from langacp.agent.loader import Loader
from langacp.agent.prompting import DEFAULT_RECURSION_LIMIT, PromptMethods, one_line
from langacp.agent.registry import SessionRegistry
from langacp.agent.sessions import SessionMethods
from langacp.agent.settings import SettingMethods
from langacp.plugins import Plugins

if TYPE_CHECKING:
    from acp.interfaces import Client

    from langacp.target import DriverTarget

__all__ = ["DEFAULT_RECURSION_LIMIT", "LangacpAgent"]

log = logging.getLogger("langacp.agent")

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def serving(method: str) -> Callable[[F], F]:
    """Turn any exception a handler raises into a JSON-RPC error through ``langacp_map_error``."""

    def decorate(handler: F) -> F:
        @functools.wraps(handler)
        async def wrapper(self: LangacpAgent, *args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(self, *args, **kwargs)
            except (RequestError, asyncio.CancelledError):
                raise
            except Exception as exc:
                # One line (a provider's error is the user's to read, not a traceback); the rest at debug.
                log.error("error while serving %s: %s", method, one_line(exc))
                log.debug("the traceback of that %s error", method, exc_info=True)
                raise self.plugins.map_error(exc, method) from exc

        return cast(F, wrapper)

    return decorate


@contextlib.contextmanager
def _set(var: contextvars.ContextVar[Any], value: Any) -> Iterator[None]:
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


class LangacpAgent:
    """Serves a LangGraph target over ACP. One instance per connection."""

    def __init__(
        self,
        target_spec: str | DriverTarget | None,
        plugins: Plugins,
        *,
        store_url: str = "memory",
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
    ) -> None:
        self.plugins = plugins
        self.loader = Loader(target_spec, store_url)
        self.registry = SessionRegistry(plugins, self.loader, self._send_update, self._send_updates)
        self.client: Client | None = None
        self._sessions = SessionMethods(self.registry)
        self._prompts = PromptMethods(self.registry, recursion_limit)
        self._settings = SettingMethods(self.registry)
        self.v2: Any = None
        """The connection's ACP v2 wire (:mod:`langacp.protocol.v2`) once ``initialize`` negotiated v2."""

    # -- SDK wiring ----------------------------------------------------------------------------

    def on_connect(self, conn: Client) -> None:
        self.client = conn
        self.registry.client = conn

    def warm_up(self) -> None:
        """Start importing the target and opening the store in the background (idempotent)."""
        self.loader.start()

    async def _send_update(self, session_id: str, update: Any) -> None:
        if self.client is None:
            return
        session = self.registry.live.get(session_id)
        if session is not None and session.ids is not None:
            update = session.ids.outgoing(update)
        await protocol.send_update(self.client, session_id, update)

    async def _send_updates(self, session_id: str, updates: list[Any]) -> None:
        """:meth:`_send_update` of each of ``updates``, in order, written together where the SDK allows."""
        if self.client is None:
            return
        session = self.registry.live.get(session_id)
        ids = session.ids if session is not None else None
        await protocol.send_updates(self.client, session_id, updates, ids.outgoing if ids is not None else _same)

    def _client_system_prompt(self, system_prompt: Any) -> contextlib.AbstractContextManager[None]:
        """The client's unstable ``systemPrompt`` for the session being opened (only from a client
        that speaks the unstable schema, the only one told it may send one); -32602 if unusable."""
        if system_prompt is None or not self._prompts.unstable:
            return contextlib.nullcontext()
        return _set(protocol.CLIENT_SYSTEM_PROMPT, protocol.client_system_prompt(system_prompt))

    # -- initialize / authenticate -------------------------------------------------------------

    @serving("initialize")
    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **_: Any
    ) -> InitializeResponse:
        self.registry.client_capabilities = client_capabilities
        self.registry.client_info = client_info
        self._prompts.unstable = handshake.speaks_unstable(client_capabilities)
        response = handshake.initialize_response(
            self.plugins,
            load_session=self.loader.persistent(),
            delete=self.loader.deletable(),
            client_capabilities=client_capabilities,
        )
        self.warm_up()
        return response

    @serving("authenticate")
    async def authenticate(self, method_id: str, **_: Any) -> None:
        await handshake.authenticate(self.plugins, method_id)

    @serving("logout")
    async def logout(self, **_: Any) -> None:
        """``logout`` (routed by :mod:`langacp.protocol.routes`)."""
        await handshake.logout()

    # -- sessions ------------------------------------------------------------------------------

    @serving("session/new")
    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        system_prompt: Any = None,
        **_: Any,
    ) -> NewSessionResponse:
        with self._client_system_prompt(system_prompt):
            return await self._sessions.new(cwd, additional_directories, mcp_servers)

    @serving("session/load")
    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        system_prompt: Any = None,
        **_: Any,
    ) -> LoadSessionResponse:
        with self._client_system_prompt(system_prompt):
            return await self._sessions.load(cwd, session_id, mcp_servers, additional_directories)

    @serving("session/resume")
    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        system_prompt: Any = None,
        **_: Any,
    ) -> ResumeSessionResponse:
        with self._client_system_prompt(system_prompt):
            return await self._sessions.resume(session_id, cwd, additional_directories, mcp_servers)

    @serving("session/fork")
    async def fork_session(
        self,
        cwd: str,
        session_id: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> ForkSessionResponse:
        return await self._sessions.fork(cwd, session_id, additional_directories, mcp_servers)

    @serving("session/list")
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        return await self._sessions.list_sessions(cwd, cursor)

    @serving("session/set_title")
    async def set_session_title(self, session_id: str, title: str, **_: Any) -> dict[str, Any]:
        """Unstable ``session/set_title`` (routed by :mod:`langacp.protocol.routes`); -32601 to a stable client."""
        if not self._prompts.unstable:
            raise RequestError.method_not_found("session/set_title")
        return {"title": await self._sessions.set_title(session_id, title)}

    @serving("session/status")
    async def session_status(self, session_id: str, **_: Any) -> dict[str, Any]:
        """Unstable ``session/status`` (routed by :mod:`langacp.protocol.routes`); -32601 to a stable client."""
        if not self._prompts.unstable:
            raise RequestError.method_not_found("session/status")
        return {"status": await self._sessions.status(session_id)}

    @serving("session/close")
    async def close_session(self, session_id: str, **_: Any) -> None:
        await self._sessions.close(session_id)

    @serving("session/delete")
    async def delete_session(self, session_id: str, **_: Any) -> None:
        """``session/delete`` (routed by :mod:`langacp.protocol.routes`)."""
        await self._sessions.delete(session_id)

    # -- modes and config ----------------------------------------------------------------------

    @serving("session/set_mode")
    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        return await self._settings.set_mode(session_id, mode_id)

    @serving("session/set_config_option")
    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        return await self._settings.set_config_option(session_id, config_id, value)

    # -- prompt and cancel ---------------------------------------------------------------------

    @serving("session/prompt")
    async def prompt(
        self, session_id: str, prompt: list[Any], traceparent: object = None, tracestate: object = None, **_: Any
    ) -> PromptResponse:
        # ``traceparent`` / ``tracestate`` come from the request's ``_meta`` (the SDK merges its keys
        # into the keyword arguments): checked strictly, a malformed one is ignored.
        trace = tracing.trace_parent(traceparent, tracestate)
        return await self._prompts.prompt(session_id, prompt, trace)

    async def cancel(self, session_id: str, **_: Any) -> None:
        self._prompts.cancel(session_id)

    # -- shutdown ------------------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Cancel running prompts and close every session (stdin EOF or a signal)."""
        self._prompts.closing = True
        await self.registry.close_all()
        self.registry.leases.stop()
        await self.loader.aclose()


def _same(update: Any) -> Any:
    return update
