"""A guarded stdio transport for the SDK's connection: bad input gets an error, never a crash.

The SDK's ndjson transport logs and drops unparseable lines without a reply, and a valid
JSON value that is not an object (``[]``, ``42``) or a response with an unhashable id makes
its receive loop raise, which ends the agent. This transport sits in front of the SDK's
``Connection`` (it implements the SDK's ``Transport`` protocol) and answers such input with
the JSON-RPC errors the spec names: -32700 parse error, -32600 invalid request. It also drops
``_meta`` keys that would overwrite a request's real parameters (the SDK merges ``_meta``
into handler keyword arguments).
"""

from __future__ import annotations

import asyncio
import json
import logging
from functools import cache
from typing import Any

from acp import RequestError
from acp.task import MessageSender, TaskSupervisor

__all__ = ["GuardedTransport"]

log = logging.getLogger("langacp.transport")


@cache
def _reserved_param_names() -> frozenset[str]:
    """Python names of every request / notification parameter in the ACP schema."""
    from acp import schema

    names: set[str] = set()
    for attr in dir(schema):
        if attr.endswith(("Request", "Notification")):
            model = getattr(schema, attr)
            names.update(getattr(model, "model_fields", {}))
    names.discard("field_meta")
    names.add("self")  # would collide with the bound handler's own first argument
    return frozenset(names)


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))


class GuardedTransport:
    """Newline-delimited JSON over asyncio streams, with input validation."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._tasks = TaskSupervisor(source="langacp.transport")
        self._sender = MessageSender(writer, self._tasks)

    async def send(self, message: dict[str, Any]) -> None:
        await self._sender.send(message)

    async def close(self) -> None:
        await self._sender.close()
        await self._tasks.shutdown()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._read_line()
            if line is None:
                return None
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                log.warning("unparseable JSON-RPC input: %s", exc)
                await self._reply(None, RequestError.parse_error({"details": str(exc)}))
                continue
            checked = await self._check(message)
            if checked is not None:
                return checked

    async def _check(self, message: Any) -> dict[str, Any] | None:
        if not isinstance(message, dict):
            await self._reply(None, RequestError.invalid_request({"details": "expected a JSON object"}))
            return None
        msg_id = message.get("id")
        has_id = "id" in message
        method = message.get("method")
        if method is None:
            if has_id and isinstance(msg_id, int) and not isinstance(msg_id, bool):
                return message  # a response to one of our requests
            if "result" not in message and "error" not in message and not has_id:
                await self._reply(None, RequestError.invalid_request({"details": "missing method"}))
            else:
                log.warning("dropping a response with an invalid id: %r", msg_id)
            return None
        problem = None
        if not isinstance(method, str):
            problem = "method must be a string"
        elif has_id and not _valid_id(msg_id):
            problem = "id must be a string, an integer or null"
        elif "params" in message and not isinstance(message["params"], (dict, list, type(None))):
            problem = "params must be an object or an array"
        if problem is not None:
            if has_id:
                await self._reply(
                    msg_id if _valid_id(msg_id) else None, RequestError.invalid_request({"details": problem})
                )
            else:
                log.warning("dropping an invalid notification: %s", problem)
            return None
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(params, dict) and isinstance(meta, dict):
            clashes = _reserved_param_names().intersection(meta)
            if clashes:
                log.warning("ignoring _meta keys that shadow parameters: %s", ", ".join(sorted(clashes)))
                params["_meta"] = {k: v for k, v in meta.items() if k not in clashes}
        return message

    async def _reply(self, msg_id: Any, error: RequestError) -> None:
        await self._sender.send({"jsonrpc": "2.0", "id": msg_id, "error": error.to_error_obj()})

    async def _read_line(self) -> bytes | None:
        """The next line, ``None`` at EOF. A line over the reader's limit is dropped with an error."""
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial or None
        except asyncio.LimitOverrunError as exc:
            consumed = exc.consumed
        while True:  # discard the oversize line
            if consumed:
                await self._reader.readexactly(consumed)
            try:
                await self._reader.readuntil(b"\n")
                break
            except asyncio.IncompleteReadError:
                return None
            except asyncio.LimitOverrunError as again:
                consumed = again.consumed
        await self._reply(None, RequestError.invalid_request({"details": "message too large"}))
        return b""
