"""The guarded transport writes the first line of a burst at once and the rest of the burst together."""

from __future__ import annotations

import asyncio
import json

import pytest

from langacp.transport import GuardedTransport


class Writes:
    """A writer that records each ``write`` call (one system call on a pipe)."""

    def __init__(self) -> None:
        self.calls: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.calls.append(data)

    async def drain(self) -> None:
        return None


def _lines(calls: list[bytes]) -> list[int]:
    return [json.loads(line)["id"] for call in calls for line in call.splitlines()]


async def test_a_burst_is_two_writes_in_order_and_a_lone_line_goes_at_once() -> None:
    writes = Writes()
    transport = GuardedTransport(asyncio.StreamReader(), writes)
    for i in range(5):  # one turn of the event loop: the first line now, the other four together
        await transport.send({"jsonrpc": "2.0", "id": i, "result": {}})
    assert _lines(writes.calls) == [0]
    await asyncio.sleep(0)
    assert _lines(writes.calls) == [0, 1, 2, 3, 4] and len(writes.calls) == 2
    await transport.send({"jsonrpc": "2.0", "id": 5, "result": {}})
    assert _lines(writes.calls) == [0, 1, 2, 3, 4, 5], "a line after a pause is not held"
    await transport.send({"jsonrpc": "2.0", "id": 6, "result": {}})
    await transport.close()  # what is held is written before the transport closes
    assert _lines(writes.calls) == [0, 1, 2, 3, 4, 5, 6]


async def test_lines_from_concurrent_senders_keep_the_order_they_were_sent_in() -> None:
    writes = Writes()
    transport = GuardedTransport(asyncio.StreamReader(), writes)
    sent: list[int] = []

    async def sender(first: int) -> None:
        for i in range(first, first + 30, 3):
            sent.append(i)
            await transport.send({"jsonrpc": "2.0", "id": i, "result": {}})
            await asyncio.sleep(0)

    await asyncio.gather(sender(0), sender(1), sender(2))
    await asyncio.sleep(0)
    assert _lines(writes.calls) == sent and sorted(sent) == list(range(30))
    assert all(line.endswith(b"\n") for call in writes.calls for line in call.splitlines(keepends=True))
    assert len(writes.calls) < 30


async def test_a_failed_write_of_a_burst_closes_the_transport() -> None:
    class Full(Writes):
        def write(self, data: bytes) -> None:
            if self.calls:
                raise OSError(28, "No space left on device")
            super().write(data)

    writes = Full()
    transport = GuardedTransport(asyncio.StreamReader(), writes)
    await transport.send({"jsonrpc": "2.0", "id": 0, "result": {}})
    await transport.send({"jsonrpc": "2.0", "id": 1, "result": {}})
    await asyncio.sleep(0)  # the burst's write fails: logged, not raised into the event loop
    with pytest.raises(ConnectionError):
        await transport.send({"jsonrpc": "2.0", "id": 2, "result": {}})
    assert _lines(writes.calls) == [0]
