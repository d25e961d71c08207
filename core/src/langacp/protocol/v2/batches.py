"""JSON-RPC 2.0 batches (§6) on an ACP v2 connection: the framing, not the dispatch.

v1 answers a line holding a JSON array with one -32600, as the npm SDK 2.4.0 does; the v2
draft (2.0.0-alpha.5, acp-tck's ACP-BATCH-* requirements) takes batches. Once a connection
negotiated v2 its transport hands every array line to :class:`Batches`, which

- parses the array one entry at a time and stops at :data:`MAX_BATCH` entries (a huge array is
  one -32600 with ``maxBatch`` in its data, never held whole in memory); ``[]`` is one -32600;
  a line that is not JSON is one -32700 (all with id ``null``, as §6 has it);
- lets the transport check each entry as it checks a line (an invalid entry's -32600 goes into
  the batch's answer) and hands the valid ones to the SDK's connection one by one, so each is
  dispatched as if it had come on a line of its own (concurrently, as the SDK runs requests);
- holds back the responses to the batch's requests and writes them as one array line once the
  last one is there, in the order of the requests. Everything else the agent sends meanwhile
  (notifications, its own requests, responses to other requests, other batches' answers) goes
  out at once: a slow request holds only its own batch's answer. A batch of notifications
  only gets no answer.

A request id already awaited by a batch in flight (twice in one batch, or in two batches) is
answered -32600 in its batch: its response could not be told apart.
"""

from __future__ import annotations

import json
import re
from typing import Any

from acp import RequestError

__all__ = ["MAX_BATCH", "Batches", "Checked"]

MAX_BATCH = 100
"""Most entries in one batch; a longer array is refused whole (-32600)."""

Checked = tuple[dict[str, Any] | None, dict[str, Any] | None]
"""One entry as the transport checked it: the message to dispatch, or the error response to send
instead (neither: the entry is dropped, as a line of its own would be)."""

_SPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, at: int) -> int:
    """The index of the first character at or after ``at`` that is not JSON whitespace."""
    match = _SPACE.match(text, at)
    return match.end() if match is not None else at


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


class _Batch:
    """One batch in flight: a slot per entry for its answer, and how many requests are unanswered."""

    __slots__ = ("replies", "waiting")

    def __init__(self, size: int) -> None:
        self.replies: list[dict[str, Any] | None] = [None] * size
        self.waiting = 0

    def answer(self) -> list[dict[str, Any]] | None:
        """The array to write (``None``: nothing to write, every entry was a notification)."""
        replies = [reply for reply in self.replies if reply is not None]
        return replies or None


class Batches:
    """The batches of one v2 connection that still await responses."""

    def __init__(self, max_entries: int = MAX_BATCH) -> None:
        self.max_entries = max_entries
        self._awaited: dict[tuple[str, Any], tuple[_Batch, int]] = {}

    def entries(self, line: bytes) -> list[Any]:
        """The entries of the array ``line`` holds, parsed one at a time.

        Raises ``ValueError`` if the line is not JSON (-32700), ``RecursionError`` if it nests
        too deep, :class:`~acp.RequestError` (-32600) for ``[]`` or more than :attr:`max_entries`.
        """
        text = line.decode("utf-8")
        at = _skip(text, 0)
        if text[at : at + 1] != "[":
            raise ValueError("expected a JSON array")
        at = _skip(text, at + 1)
        items: list[Any] = []
        if text[at : at + 1] != "]":
            while True:
                if len(items) == self.max_entries:  # before parsing more of it
                    raise RequestError.invalid_request(
                        {"details": f"a batch holds at most {self.max_entries} messages", "maxBatch": self.max_entries}
                    )
                item, at = _DECODER.raw_decode(text, at)
                items.append(item)
                at = _skip(text, at)
                if text[at : at + 1] == ",":
                    at = _skip(text, at + 1)
                    continue
                if text[at : at + 1] != "]":
                    raise ValueError(f"expected ',' or ']' at character {at}")
                break
        if _skip(text, at + 1) != len(text):
            raise ValueError(f"extra data after the array at character {at + 1}")
        if not items:
            raise RequestError.invalid_request({"details": "an empty batch"})
        return items

    def begin(self, checked: list[Checked]) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
        """Start a batch: the messages to dispatch, and its answer if it needs no response (else ``None``)."""
        batch = _Batch(len(checked))
        dispatch: list[dict[str, Any]] = []
        for index, (message, error) in enumerate(checked):
            if error is not None:
                batch.replies[index] = error
                continue
            if message is None:
                continue
            if "method" in message and "id" in message:
                key = _key(message["id"])
                if key in self._awaited:
                    details = {"details": "another request in flight has this id"}
                    reply = {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": RequestError.invalid_request(details).to_error_obj(),
                    }
                    batch.replies[index] = reply
                    continue
                self._awaited[key] = (batch, index)
                batch.waiting += 1
            dispatch.append(message)
        return dispatch, (batch.answer() if batch.waiting == 0 else None)

    def claim(self, response: dict[str, Any]) -> tuple[bool, list[dict[str, Any]] | None]:
        """Whether ``response`` answers a batch's request, and that batch's answer once it is complete."""
        if not self._awaited:
            return False, None
        request_id = response.get("id")
        if isinstance(request_id, (dict, list)):
            return False, None
        entry = self._awaited.pop(_key(request_id), None)
        if entry is None:
            return False, None
        batch, index = entry
        batch.replies[index] = response
        batch.waiting -= 1
        return True, (batch.answer() if batch.waiting == 0 else None)
