"""A guarded stdio transport for the SDK's connection: bad input gets an error, never a crash.

The SDK's ndjson transport logs and drops unparseable lines without a reply, and a valid
JSON value that is not an object (``[]``, ``42``) or a response with an unhashable id makes
its receive loop raise, which ends the agent. This transport sits in front of the SDK's
``Connection`` (it implements the SDK's ``Transport`` protocol) and checks every line before
the SDK sees it:

- not JSON (or ``NaN`` / ``Infinity``, which JSON does not have): -32700 parse error;
- JSON but not a JSON-RPC 2.0 request, notification or response (``"jsonrpc"`` missing or not
  ``"2.0"``, no method and no result, a method that is not a string, an id that is not a
  string / integer / null, params that are not an object or array): -32600 invalid request,
  with the message's id when it has a usable one;
- longer than :data:`MAX_MESSAGE_BYTES` or nested deeper than :data:`MAX_DEPTH`: -32600 with
  the limit in the error's data (a deeper message never reaches the recursive code that would
  raise ``RecursionError``).

A string holding a lone surrogate (``"\\ud800"``: valid JSON, but not Unicode, so no UTF-8
encoder takes it: the session store's, a model provider's) has it replaced by U+FFFD, as a
UTF-8 decoder replaces a broken character.

It also drops ``_meta`` keys that would overwrite a request's real parameters (the SDK merges
``_meta`` into handler keyword arguments), and writes with ``allow_nan=False``: a ``NaN`` in
an outgoing message (say, in the data of an error) becomes ``null`` instead of invalid JSON.
The limits and codes are listed in docs/errors.md. A line holding a JSON array is one -32600
unless the connection negotiated ACP v2, which sets :attr:`GuardedTransport.batches`
(:mod:`langacp.protocol.v2.batches`: JSON-RPC batches). Encoding, the depth measure and the
surrogate and ``NaN`` clean-ups are :mod:`langacp.wire_json`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from acp import RequestError

from langacp.wire_json import SURROGATE_ESCAPE, encode_message, replace_surrogates, too_deep

if TYPE_CHECKING:
    from langacp.protocol.v2.batches import Batches, Checked

__all__ = ["MAX_DEPTH", "MAX_MESSAGE_BYTES", "ByteWriter", "GuardedTransport", "encode_message", "max_message_bytes"]

log = logging.getLogger("langacp.transport")

MAX_MESSAGE_BYTES = 50 * 1024 * 1024
"""Longest accepted line (one JSON-RPC message), in bytes; ``LANGACP_MAX_MESSAGE_BYTES`` overrides it."""
MAX_MESSAGE_BYTES_ENV = "LANGACP_MAX_MESSAGE_BYTES"
MAX_DEPTH = 100
"""Deepest accepted nesting of arrays and objects in one message."""


def max_message_bytes() -> int:
    """The message size limit: ``LANGACP_MAX_MESSAGE_BYTES`` if set to a positive integer, else the default."""
    import os

    value = os.environ.get(MAX_MESSAGE_BYTES_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_MESSAGE_BYTES


class ByteWriter(Protocol):
    """Where encoded messages go: an ``asyncio.StreamWriter`` or anything with the same two methods."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class GuardedTransport:
    """Newline-delimited JSON over asyncio streams, with input validation.

    ``writer`` needs only ``write`` and ``drain`` (see :class:`ByteWriter`): the server passes
    its own writer when stdout is a regular file, which asyncio's pipe transport refuses.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: ByteWriter,
        *,
        max_bytes: int | None = None,
        max_depth: int = MAX_DEPTH,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._max_bytes = max_bytes if max_bytes is not None else max_message_bytes()
        self._max_depth = max_depth
        self._batch: list[bytes] | None = None
        """Lines sent since the last write in this turn of the event loop, written together at its end."""
        self._closed = False
        self.batches: Batches | None = None
        """JSON-RPC batches, once the connection negotiated ACP v2 (``None``: an array is one -32600)."""
        self._entries: deque[dict[str, Any]] = deque()
        """A batch's entries not yet handed to the connection."""

    async def send(self, message: dict[str, Any]) -> None:
        """Write one line, in the order sent. The first line of a burst is written at once; the
        lines that follow it in the same turn of the event loop (a session's queued updates,
        other sessions' updates) are written together when the turn ends: one system call (and
        one wake-up of the reader) instead of one each."""
        if self.batches is not None and "method" not in message:
            held, answer = self.batches.claim(message)
            if held:  # the batch's answer goes out whole, once its last response is there
                if answer is not None:
                    await self._write(encode_message(answer))
                return
        await self._write(encode_message(message))

    async def send_many(self, messages: list[dict[str, Any]]) -> None:
        """Write several notifications (messages with a ``method``), in order, as :meth:`send` would one
        after the other, in one write and one drain: a replay's hundreds of updates cost one system call.

        Anything but a notification (a response may belong to a v2 batch) is sent one by one with :meth:`send`.
        """
        if not all("method" in message for message in messages):
            for message in messages:
                await self.send(message)
            return
        if messages:
            await self._write(b"".join(map(encode_message, messages)))

    async def _write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionError("the transport is closed")
        if self._batch is None:
            self._writer.write(data)
            self._batch = []
            asyncio.get_running_loop().call_soon(self._write_batch)
        else:
            self._batch.append(data)
        await self._writer.drain()

    def _write_batch(self) -> None:
        batch, self._batch = self._batch, None
        if batch and not self._closed:
            try:
                self._writer.write(b"".join(batch))
            except OSError as exc:  # a regular file's write (a full disk): later sends fail as a closed transport's
                log.warning("cannot write to the client (%s); %d message(s) lost", exc, len(batch))
                self._closed = True

    async def close(self) -> None:
        self._write_batch()
        self._closed = True
        close = getattr(self._writer, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                close()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            if self._entries:
                return self._entries.popleft()
            line = await self._read_line()
            if line is None:
                return None
            line = line.strip()
            if not line:
                continue
            if self.batches is not None and line.startswith(b"["):
                await self._receive_batch(self.batches, line)
                continue
            try:
                message = json.loads(line, parse_constant=_reject_constant)
            except RecursionError:
                await self._too_deep(None)
                continue
            except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, NaN
                log.warning("unparseable JSON-RPC input: %s", exc)
                await self._reply(None, RequestError.parse_error({"details": str(exc)}))
                continue
            if SURROGATE_ESCAPE.search(line):
                message = replace_surrogates(message)
            try:
                checked = await self._check(message)
            except RecursionError:  # a defence in depth: _check is iterative
                await self._too_deep(None)
                continue
            if checked is not None:
                return checked

    async def _too_deep(self, msg_id: Any) -> None:
        await self._reply(msg_id, self._too_deep_error())

    async def _receive_batch(self, batches: Batches, line: bytes) -> None:
        """Check each entry of a batch as a line of its own; queue the valid ones, answer the batch if it is done."""
        try:
            items = batches.entries(line)
        except RecursionError:
            await self._too_deep(None)
            return
        except RequestError as exc:  # [] or too many entries
            log.warning("refusing a batch: %s", (exc.data or {}).get("details"))
            await self._reply(None, exc)
            return
        except ValueError as exc:
            log.warning("unparseable JSON-RPC batch: %s", exc)
            await self._reply(None, RequestError.parse_error({"details": str(exc)}))
            return
        if SURROGATE_ESCAPE.search(line):
            items = [replace_surrogates(item) for item in items]
        checked: list[Checked] = []
        for item in items:
            try:
                checked.append(self._validate(item))
            except RecursionError:  # a defence in depth: _validate is iterative
                checked.append((None, self._error(None, self._too_deep_error())))
        dispatch, answer = batches.begin(checked)
        self._entries.extend(dispatch)
        if answer is not None:
            with contextlib.suppress(ConnectionError, RuntimeError, OSError):
                await self._write(encode_message(answer))

    async def _check(self, message: Any) -> dict[str, Any] | None:
        checked, error = self._validate(message)
        if error is not None:
            await self._send_quietly(error)
        return checked

    async def _send_quietly(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError, OSError):
            await self.send(message)

    @staticmethod
    def _error(msg_id: Any, error: RequestError) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": msg_id, "error": error.to_error_obj()}

    def _too_deep_error(self) -> RequestError:
        log.warning("dropping a message nested deeper than %d levels", self._max_depth)
        return RequestError.invalid_request(
            {"details": f"message nested deeper than {self._max_depth} levels", "maxDepth": self._max_depth}
        )

    def _validate(self, message: Any) -> Checked:
        """The message to hand to the connection, or the error response to send instead (neither: drop it)."""
        if not isinstance(message, dict):
            return None, self._error(None, RequestError.invalid_request({"details": "expected a JSON object"}))
        msg_id = message.get("id")
        has_id = "id" in message
        usable_id = msg_id if has_id and _valid_id(msg_id) else None
        method = message.get("method")
        is_response = method is None and ("result" in message or "error" in message)
        problem = None
        if message.get("jsonrpc") != "2.0":
            problem = 'jsonrpc must be "2.0"'
        elif too_deep(message, self._max_depth):
            if has_id and not is_response:
                return None, self._error(usable_id, self._too_deep_error())
            log.warning("dropping a notification or response nested deeper than %d levels", self._max_depth)
            return None, None
        elif is_response:
            if has_id and isinstance(msg_id, int) and not isinstance(msg_id, bool):
                return message, None  # a response to one of our requests (our ids are integers)
            log.warning("dropping a response with an id we never sent: %r", msg_id)
            return None, None
        elif method is None:
            problem = "missing method (or result / error, for a response)"
        elif not isinstance(method, str):
            problem = "method must be a string"
        elif has_id and not _valid_id(msg_id):
            problem = "id must be a string, an integer or null"
        elif "params" in message and not isinstance(message["params"], (dict, list, type(None))):
            problem = "params must be an object or an array"
        if problem is not None:
            if has_id or method is None:
                return None, self._error(usable_id, RequestError.invalid_request({"details": problem}))
            log.warning("dropping an invalid notification: %s", problem)
            return None, None
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(params, dict) and isinstance(meta, dict):
            clashes = _reserved_param_names().intersection(meta)
            if clashes:
                log.warning("ignoring _meta keys that shadow parameters: %s", ", ".join(sorted(clashes)))
                params["_meta"] = {k: v for k, v in meta.items() if k not in clashes}
        return message, None

    async def _reply(self, msg_id: Any, error: RequestError) -> None:
        await self._send_quietly(self._error(msg_id, error))

    async def _read_line(self) -> bytes | None:
        """The next line, ``None`` at EOF. A line over the size limit is dropped with an error."""
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            line = exc.partial
            if not line:
                return None
        except asyncio.LimitOverrunError as exc:
            return await self._skip_oversize(exc.consumed)
        if len(line) > self._max_bytes:
            await self._oversize()
            return b""
        return line

    async def _skip_oversize(self, consumed: int) -> bytes | None:
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
        await self._oversize()
        return b""

    async def _oversize(self) -> None:
        log.warning("dropping a message larger than %d bytes", self._max_bytes)
        await self._reply(
            None,
            RequestError.invalid_request(
                {"details": f"message larger than {self._max_bytes} bytes", "maxBytes": self._max_bytes}
            ),
        )
