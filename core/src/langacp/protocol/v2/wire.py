"""One connection's ACP v2 wire: its handlers, over the same agent (session core, turns, plugins) as v1.

:class:`V2Wire` is created for every connection by :func:`langacp.protocol.v2.routing.install`
and becomes :attr:`active` when ``initialize`` asks for v2. Its handlers parse v2 requests,
call the agent's own methods (the v1 session core) and answer in v2 shapes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from acp import RequestError
from pydantic import BaseModel, ValidationError

from langacp.protocol.v2.models import InitializeRequest, wire
from langacp.protocol.v2.negotiation import v1_client_capabilities, v2_initialize_response

__all__ = ["V2Wire", "parse"]

log = logging.getLogger("langacp.protocol")

Handler = Callable[[dict[str, Any]], Awaitable[Any]]
M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], params: Any) -> M:
    """``params`` as ``model``; -32602 with the first problem when they do not fit."""
    try:
        return model.model_validate(params if params is not None else {})
    except ValidationError as exc:
        errors = exc.errors()
        where = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        message = errors[0]["msg"] if errors else "invalid"
        raise RequestError.invalid_params({"details": f"{where}: {message}"[:300]}) from exc


class V2Wire:
    """The v2 side of one connection (inactive until ``initialize`` negotiates v2)."""

    def __init__(self, conn: Any, agent: Any) -> None:
        self.conn = conn
        self.agent = agent
        self.active = False
        self._handlers: dict[str, Handler] = {}

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
        self.active = True
        self.agent.v2 = self
        return wire(v2_initialize_response(v1))
