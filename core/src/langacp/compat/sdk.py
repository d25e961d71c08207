"""The ACP SDK's (agent-client-protocol 0.12) private names langacp uses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

__all__ = [
    "memory_transport_pair",
    "next_request_id",
    "route_incoming",
    "sdk_connection",
    "sdk_route",
    "sdk_router",
    "sdk_transport",
    "send_raw_notification",
    "send_raw_notifications",
    "send_raw_request",
    "wrap_request_runner",
]


def sdk_connection(conn: Any) -> Any:
    """The JSON-RPC ``Connection`` under an SDK ``AgentSideConnection`` / ``ClientSideConnection`` (``._conn``)."""
    return conn._conn


def sdk_router(conn: Any) -> Any:
    """The ``MessageRouter`` that routes an SDK connection's incoming methods (``Connection._handler``)."""
    return sdk_connection(conn)._handler


def sdk_transport(conn: Any) -> Any:
    """The transport an SDK connection reads and writes messages through (``Connection._transport``)."""
    return sdk_connection(conn)._transport


def route_incoming(conn: Any, handler: Callable[[str, Any, bool], Awaitable[Any]]) -> None:
    """Send ``conn``'s incoming requests and notifications to ``handler(method, params, is_notification)``.

    Replaces the SDK's router (``Connection._handler``): the client speaks a protocol version the SDK has no models for.
    """
    sdk_connection(conn)._handler = handler


def sdk_route(router: Any, method: str, kind: str) -> Any:
    """The ``Route`` a ``MessageRouter`` has for ``method`` (``_requests`` / ``_notifications``), or ``None``."""
    routes = router._requests if kind == "request" else router._notifications
    return routes.get(method)


def wrap_request_runner(
    conn: Any,
    wrap: Callable[[Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]], Callable[[dict[str, Any]], Any]],
) -> None:
    """Replace the runner of ``conn``'s incoming requests (``Connection._execute_request``) by ``wrap(it)``."""
    connection = sdk_connection(conn)
    connection._execute_request = wrap(connection._execute_request)


async def send_raw_notification(conn: Any, method: str, params: dict[str, Any]) -> None:
    """Send a JSON-RPC notification the SDK has no model for, on ``conn``'s connection."""
    await sdk_connection(conn).send_notification(method, params)


async def send_raw_notifications(conn: Any, method: str, params: list[dict[str, Any]]) -> None:
    """Send one notification ``method`` per item of ``params``, in order, on ``conn``'s connection.

    The SDK's ``Connection.send_notification`` checks that the connection is open
    (``_raise_if_unavailable``), frames the message, sends it and shows it to the connection's
    observers (``_observers``). When nobody observes and the transport can write several
    messages at once (``send_many``, :class:`~langacp.transport.GuardedTransport`), the same
    messages go to it in one call; otherwise (or when those names are missing) each goes
    through ``send_notification``.
    """
    connection = sdk_connection(conn)
    send_many = getattr(getattr(connection, "_transport", None), "send_many", None)
    if send_many is None or getattr(connection, "_observers", True):
        for item in params:
            await connection.send_notification(method, item)
        return
    connection._raise_if_unavailable()
    await send_many([{"jsonrpc": "2.0", "method": method, "params": item} for item in params])


def next_request_id(conn: Any) -> int:
    """The id ``conn``'s next request to the peer gets (``Connection._next_request_id``).

    Read it right before sending (with no ``await`` between): the id of that request.
    """
    return int(sdk_connection(conn)._next_request_id)


async def send_raw_request(conn: Any, method: str, params: dict[str, Any]) -> Any:
    """Send a JSON-RPC request the SDK has no model for on ``conn``'s connection; its result (JSON)."""
    return await sdk_connection(conn).send_request(method, params)


def memory_transport_pair() -> tuple[Any, Any]:
    """The SDK's in-memory pair of transports (``acp._transport``), for in-process tests."""
    try:
        from acp._transport import memory_transport_pair as pair
    except ImportError:  # pragma: no cover - the SDK moved its private module
        from acp.transports import memory_transport_pair as pair  # type: ignore[attr-defined,no-redef]
    return pair()  # type: ignore[no-any-return]
