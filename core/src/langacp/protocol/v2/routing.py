"""Which handler answers a method: v1's route, or v2's once the connection negotiated v2.

:func:`install` puts one dispatching route in front of every method whose meaning differs
between the versions (or that exists in one only). On a v1 connection it hands the message to
the route that answered it before (the SDK's, or :mod:`langacp.protocol.routes`'), so v1 is
exactly what it was; a method only v2 has is -32601 there. Once ``initialize`` asked for 2 or
more, the connection's :class:`~langacp.protocol.v2.wire.V2Wire` answers, and a method only v1
has is -32601. Messages are framed and sent by the SDK's connection either way.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from acp import RequestError
from acp.router import MessageRouter, Route

from langacp.compat import sdk
from langacp.protocol.v2.models import PROTOCOL_VERSION
from langacp.protocol.v2.negotiation import requested_version, speaks_v2

__all__ = ["V1_ONLY", "V2_ONLY", "install"]

log = logging.getLogger("langacp.protocol")

Handler = Callable[[Any], Awaitable[Any]]

V1_ONLY = (
    "authenticate",
    "logout",
    "session/load",
    "session/set_mode",
    "session/fork",
    "session/set_title",
    "session/status",
)
"""v1 methods v2 has not (``session/load`` folds into ``session/resume``; modes are config options)."""

V2_ONLY = ("auth/login", "auth/logout", "tool_call/cancel", "terminal/cancel")
"""v2 methods v1 has not."""

SHARED = (
    "session/new",
    "session/prompt",
    "session/resume",
    "session/list",
    "session/close",
    "session/delete",
    "session/set_config_option",
)
"""Methods both have, with v2 shapes of their own."""


def install(conn: Any, agent: Any) -> None:
    """Route ``initialize`` and every method above through the version ``conn`` negotiated."""
    from langacp.protocol.v2.wire import V2Wire

    router = sdk.sdk_router(conn)
    if not isinstance(router, MessageRouter):
        raise TypeError(f"unexpected SDK router {type(router).__name__}: update langacp.compat.sdk")
    wire = V2Wire(conn, agent)

    def v1_route(method: str, kind: Literal["request", "notification"]) -> Route | None:
        route = sdk.sdk_route(router, method, kind)
        return route if isinstance(route, Route) else None

    initialize = v1_route("initialize", "request")

    async def route_initialize(params: Any) -> Any:
        if wire.active:
            if (requested_version(params) or 0) < PROTOCOL_VERSION:
                raise RequestError(-32600, "Invalid request", {"details": "this connection speaks ACP v2"})
            return await wire.initialize(params)
        if speaks_v2(params):
            return await wire.initialize(params)
        if initialize is None:
            raise RequestError.method_not_found("initialize")
        return await initialize.handle(params)

    router.add_route(Route("initialize", route_initialize, "request"))
    for method in (*V1_ONLY, *V2_ONLY, *SHARED):
        router.add_route(Route(method, _dispatch(wire, method, v1_route(method, "request")), "request"))
    cancel = v1_route("session/cancel", "notification")
    router.add_route(Route("session/cancel", _dispatch(wire, "session/cancel", cancel), "notification"))


def _dispatch(wire: Any, method: str, v1: Route | None) -> Handler:
    async def route(params: Any) -> Any:
        if wire.active:
            handler = wire.handler(method)
            if handler is not None:
                return await handler(params if params is not None else {})
            if method in V1_ONLY or v1 is None:
                raise RequestError.method_not_found(method)
        if v1 is None:
            raise RequestError.method_not_found(method)
        return await v1.handle(params)

    return route
