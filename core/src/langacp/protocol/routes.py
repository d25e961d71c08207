"""What the SDK (agent-client-protocol 0.12) does not route yet, added to its router.

Delete each when the SDK routes it itself:

- ``initialize``, parsed with :class:`~langacp.protocol.models.InitializeRequestV1`: the SDK's
  model drops the client's stable ``session.notices`` and ``session.compaction`` capabilities;
- ``session/delete`` → ``agent.delete_session(session_id)`` (schema ``DeleteSessionRequest``);
- ``logout`` → ``agent.logout()`` (schema ``LogoutRequest``);
- ``$/cancel_request`` (a notification): cancels the in-flight request with that id. Its response
  is then the JSON-RPC error -32800 (request cancelled); a v1 ``session/prompt`` is cancelled as
  ``session/cancel`` would, so it still answers with ``stopReason: cancelled`` (a v2 one waits
  only for its insertion: cancelling it takes it out of the queue, -32800).

The SDK offers no public hook for this: the routes go into the connection's router
(``Route``/``MessageRouter.add_route``, public classes) reached through :mod:`langacp.compat.sdk`,
and the request tracking wraps the connection's request runner there. ACP v2's routes go in
front of these (:mod:`langacp.protocol.v2.routing`): a v1 connection reaches them unchanged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp import RequestError
from acp.router import MessageRouter, Route
from acp.schema import CancelRequestNotification, DeleteSessionRequest, LogoutRequest

from langacp.compat import sdk
from langacp.protocol.models import (
    InitializeRequestV1,
    LoadSessionRequestU,
    NewSessionRequestU,
    ResumeSessionRequestU,
    SessionStatusRequest,
    SetSessionTitleRequest,
)

__all__ = ["REQUEST_CANCELLED", "install"]

log = logging.getLogger("langacp.protocol")

REQUEST_CANCELLED = -32800


def _request(model: Any, handler: Callable[..., Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
    async def route(params: Any) -> Any:
        request = model.model_validate(params if params is not None else {})
        fields = {name: getattr(request, name) for name in model.model_fields if name != "field_meta"}
        result = await handler(**fields)
        return {} if result is None else result

    return route


class _InFlight:
    """The connection's running requests by id, so that ``$/cancel_request`` can find one."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.tasks: dict[str, tuple[asyncio.Task[Any], dict[str, Any]]] = {}
        self.cancelled: set[asyncio.Task[Any]] = set()

    def wrap(self, execute: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> Any:
        async def tracked(message: dict[str, Any]) -> dict[str, Any]:
            task = asyncio.current_task()
            key = _key(message.get("id"))
            if task is None or key is None:
                return await execute(message)
            self.tasks[key] = (task, message)
            try:
                return await execute(message)
            except asyncio.CancelledError:
                if task not in self.cancelled:
                    raise  # the connection is closing: not ours to answer
                task.uncancel()
                error = RequestError(REQUEST_CANCELLED, "Request cancelled", {"details": "$/cancel_request"})
                return {"jsonrpc": "2.0", "id": message["id"], "error": error.to_error_obj()}
            finally:
                self.tasks.pop(key, None)
                self.cancelled.discard(task)

        return tracked

    async def cancel_request(self, request_id: Any = None) -> None:
        entry = self.tasks.get(_key(request_id) or "")
        if entry is None:
            return  # already answered, or never seen: nothing to do
        task, message = entry
        if message.get("method") == "session/prompt" and getattr(self.agent, "v2", None) is None:
            params = message.get("params") or {}
            session_id = params.get("sessionId") if isinstance(params, dict) else None
            if isinstance(session_id, str):
                await self.agent.cancel(session_id=session_id)  # the turn ends; the prompt answers "cancelled"
                return
        self.cancelled.add(task)
        task.cancel()


def _key(request_id: Any) -> str | None:
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    return f"{type(request_id).__name__}:{request_id}"


def install(conn: Any, agent: Any) -> None:
    """Add the missing routes to ``conn`` (an ``AgentSideConnection`` serving ``agent``)."""
    router = sdk.sdk_router(conn)
    if not isinstance(router, MessageRouter):
        raise TypeError(f"unexpected SDK router {type(router).__name__}: update langacp.compat.sdk")
    if hasattr(agent, "initialize"):
        router.add_route(Route("initialize", _request(InitializeRequestV1, agent.initialize), "request"))
    for method, model, name in (
        ("session/new", NewSessionRequestU, "new_session"),
        ("session/load", LoadSessionRequestU, "load_session"),
        ("session/resume", ResumeSessionRequestU, "resume_session"),
        ("session/set_title", SetSessionTitleRequest, "set_session_title"),  # unstable
        ("session/status", SessionStatusRequest, "session_status"),  # unstable
    ):
        if hasattr(agent, name):  # what the SDK's models drop (systemPrompt) or do not have
            router.add_route(Route(method, _request(model, getattr(agent, name)), "request"))
    if hasattr(agent, "delete_session"):
        router.add_route(Route("session/delete", _request(DeleteSessionRequest, agent.delete_session), "request"))
    if hasattr(agent, "logout"):
        router.add_route(Route("logout", _request(LogoutRequest, agent.logout), "request"))
    inflight = _InFlight(agent)
    sdk.wrap_request_runner(conn, inflight.wrap)

    async def cancel_request(params: Any) -> None:
        notification = CancelRequestNotification.model_validate(params if params is not None else {})
        await inflight.cancel_request(notification.request_id)

    router.add_route(Route("$/cancel_request", cancel_request, "notification"))
    from langacp.protocol.v2 import routing as v2_routing

    v2_routing.install(conn, agent)  # v1's routes above stay as they are; v2's in front, by version
