"""One connection's ACP v2 wire: its handlers, over the same agent (session core, turns, plugins) as v1.

:class:`V2Wire` is created for every connection by :func:`langacp.protocol.v2.routing.install`
and becomes :attr:`active` when ``initialize`` asks for v2. Its handlers parse v2 requests,
call the agent's own methods (the v1 session core) and answer in v2 shapes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp import RequestError

from langacp.compat import sdk
from langacp.protocol.v2.batches import Batches
from langacp.protocol.v2.models import (
    CancelTerminalRequest,
    CancelToolCallRequest,
    InitializeRequest,
    LoginAuthRequest,
    LogoutAuthRequest,
    PromptRequest,
    parse,
    wire,
)
from langacp.protocol.v2.negotiation import v1_client_capabilities, v2_initialize_response

__all__ = ["V2Wire"]

log = logging.getLogger("langacp.protocol")

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class V2Wire:
    """The v2 side of one connection (inactive until ``initialize`` negotiates v2)."""

    def __init__(self, conn: Any, agent: Any) -> None:
        self.conn = conn
        self.agent = agent
        self.active = False
        self._handlers: dict[str, Handler] = {}
        self.client: Any = None
        """The :class:`~.client.V2Client` the session core sends through (once v2 is negotiated)."""
        self.turns: Any = None

    def handler(self, method: str) -> Handler | None:
        """The v2 handler of ``method`` (``None``: v2 has no such method)."""
        return self._handlers.get(method)

    async def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        """Negotiate v2: the agent's own ``initialize`` (capabilities, auth methods), answered in v2's shape."""
        from acp.schema import Implementation

        request = parse(InitializeRequest, params)
        info = request.info
        v1 = await self.agent.initialize(
            protocol_version=1,
            client_capabilities=v1_client_capabilities(request.capabilities),
            client_info=Implementation(name=info.name, title=info.title, version=info.version),
        )
        if not self.active:
            self._activate()
        return wire(v2_initialize_response(v1))

    def _activate(self) -> None:
        from langacp.protocol.v2.client import V2Client
        from langacp.protocol.v2.sessions import V2Sessions
        from langacp.protocol.v2.turns import V2Turns

        self.client = V2Client(self.conn, self._waiting, self._seen)
        self.turns = V2Turns(self.agent, self.client)
        self.client.snapshot = self.turns.snapshot
        sessions = V2Sessions(self.agent, self.client, self.turns)
        self.agent.client = self.agent.registry.client = self.client  # the core sends through v2's mapping
        self._handlers = {
            "session/new": sessions.new,
            "session/resume": sessions.resume,
            "session/list": sessions.list,
            "session/close": sessions.close,
            "session/delete": sessions.delete,
            "session/set_config_option": sessions.set_config_option,
            "session/prompt": self.prompt,
            "session/cancel": self.cancel,
            "auth/login": self.login,
            "auth/logout": self.logout,
            "tool_call/cancel": self.cancel_tool_call,
            "terminal/cancel": self.cancel_terminal,
        }
        self.active = True
        self.agent.v2 = self
        self.agent.registry.protocol_version = 2  # sessions opened from now on: SessionContext.protocol_version
        transport = sdk.sdk_transport(self.conn)
        if hasattr(transport, "batches"):  # langacp's guarded transport (what `langacp serve` reads stdin with)
            transport.batches = Batches()  # JSON-RPC batches from now on

    async def _waiting(self, session_id: str, asking: bool) -> None:
        await self.turns.waiting(session_id, asking)

    def _seen(self, session_id: str, update: dict[str, Any]) -> None:
        """Every v2 update sent (nothing to track yet: no tool call advertises ``cancel``)."""

    # -- prompt and cancel ------------------------------------------------------------------------

    async def prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        """``session/prompt``: ``{messageId}`` once inserted (the turn is reported by ``state_update``)."""
        request = parse(PromptRequest, params)
        result: dict[str, Any] = await self.turns.prompt(request.session_id, request.prompt)
        return result

    async def cancel(self, params: dict[str, Any]) -> None:
        """``session/cancel``: the running turn ends ``cancelled``; prompts not yet inserted get -32800."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str):
            return  # a notification: nothing to answer
        self.turns.cancel(session_id)
        await self.agent.cancel(session_id=session_id)

    async def cancel_tool_call(self, params: dict[str, Any]) -> dict[str, Any]:
        """``tool_call/cancel``: stop one running tool call (the turn goes on); -32602 for any other.

        Answered once the cancel is accepted; the call's final ``tool_call_update`` (``cancelled``,
        or ``completed`` / ``failed`` if it finished first) follows.
        """
        from langacp.protocol import tool_cancels

        request = parse(CancelToolCallRequest, params)
        session = self.agent.registry.get(request.session_id)  # -32002 for a session that is not open
        call_id = request.tool_call_id
        if not self.client.cancellable(request.session_id, call_id):
            raise RequestError.invalid_params({"details": f"tool call {call_id[:80]!r} is not running or unknown"})
        model_id = session.ids.model_id(call_id) if session.ids is not None else call_id
        self.client.cancelling(request.session_id, call_id)
        tool_cancels.cancel(request.session_id, model_id)
        return {}

    async def cancel_terminal(self, params: dict[str, Any]) -> dict[str, Any]:
        """``terminal/cancel``: stop one running agent-owned terminal of the session (its plugin stops
        the process; its ``terminal_update`` with ``exitStatus`` follows). -32602 for a terminal the
        session does not run now (unknown, exited, another session's, or not cancellable)."""
        from langacp.terminals import cancel_terminal

        request = parse(CancelTerminalRequest, params)
        session = self.agent.registry.get(request.session_id)  # -32002 for a session that is not open
        if not cancel_terminal(session.context, request.terminal_id):
            raise RequestError.invalid_params({"details": f"terminal {request.terminal_id[:80]!r} is not running"})
        return {}

    # -- auth -------------------------------------------------------------------------------------

    async def login(self, params: dict[str, Any]) -> dict[str, Any]:
        """``auth/login``: v1's ``authenticate`` (the plugins' auth methods)."""
        request = parse(LoginAuthRequest, params)
        await self.agent.authenticate(method_id=request.method_id)
        return {}

    async def logout(self, params: dict[str, Any]) -> dict[str, Any]:
        """``auth/logout``: forget the stored key (v1's ``logout``); with none to forget, nothing to do."""
        parse(LogoutAuthRequest, params)
        try:
            await self.agent.logout()
        except RequestError as exc:
            if exc.code != -32601:
                raise
        return {}
