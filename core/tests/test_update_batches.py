"""Updates queued together are written together, byte for byte as one-by-one sends write them."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

import pytest
from acp import start_tool_call, text_block, tool_content, update_agent_message_text, update_user_message
from acp.core import AgentSideConnection
from acp.schema import AgentMessageChunk

from langacp.bridge.outbox import UpdateSink
from langacp.protocol import ForSession, send_update, send_updates
from langacp.protocol import start_tool_call as named_start
from langacp.transport import GuardedTransport


class _Tagged(AgentMessageChunk):
    """A subclass of an SDK update: the SDK's to send (its model strips ``tag``)."""

    tag: str = "x"


class _Unsendable:
    """Not an update at all: the SDK refuses it, the outbox logs it and goes on."""

    session_update = "agent_message_chunk"


def _updates() -> list[Any]:
    return [
        update_user_message(text_block("look")),
        update_agent_message_text("answer").model_copy(update={"message_id": "m1"}),
        start_tool_call("c1", "Read", kind="read", status="completed", content=[tool_content(text_block(""))]),
        named_start("c2", "Add", name="add", kind="other", status="failed", raw_input={"a": [1, 2.5, None]}),
        ForSession("other", update_agent_message_text("theirs")),
        _Tagged(session_update="agent_message_chunk", content=text_block("tagged")),
        _Unsendable(),
        update_agent_message_text("after"),
    ]


class _Pipe:
    """An agent-side SDK connection writing through :class:`GuardedTransport` into a real pipe."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "wb", buffering=0)
        self.writes = 0

    def write(self, data: bytes) -> None:
        self.writes += 1
        self.writer.write(data)

    async def drain(self) -> None:
        return None

    def connection(self) -> Any:
        transport = GuardedTransport(asyncio.StreamReader(), self)
        return AgentSideConnection(object(), transport, listening=False)  # type: ignore[arg-type]

    def bytes_written(self) -> bytes:
        self.writer.close()
        with os.fdopen(self.read_fd, "rb") as reader:
            return reader.read()


async def test_updates_sent_together_are_the_bytes_of_one_by_one_sends(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    one_by_one, together = _Pipe(loop), _Pipe(loop)
    single = one_by_one.connection()
    for update in _updates():
        try:
            await send_update(single, "s", update)
        except Exception:  # what the outbox does with an update that fails: logged, skipped
            logging.getLogger("test").exception("failed")
    await asyncio.sleep(0)  # the transport's held lines
    with caplog.at_level(logging.ERROR, logger="langacp.bridge"):
        await send_updates(together.connection(), "s", _updates())
    await asyncio.sleep(0)
    expected = one_by_one.bytes_written()
    assert together.bytes_written() == expected
    assert expected.count(b"\n") == 7 and b'"sessionId":"other"' in expected
    logged = [r.message for r in caplog.records if r.name == "langacp.bridge"]
    assert logged == ["failed to send a session update"]  # the unsendable one, skipped


async def test_a_run_of_updates_is_one_write() -> None:
    pipe = _Pipe(asyncio.get_running_loop())
    updates = [update_agent_message_text(f"part {i}") for i in range(50)]
    await send_updates(pipe.connection(), "s", updates)
    await asyncio.sleep(0)  # one by one: the first line at once, the others at the loop's turn (two writes)
    assert pipe.writes == 1
    assert pipe.bytes_written().count(b"\n") == 50


async def test_prepare_applies_to_each_update_in_order() -> None:
    pipe = _Pipe(asyncio.get_running_loop())
    seen: list[str] = []

    def prepare(update: Any) -> Any:
        seen.append(update.content.text)
        return update.model_copy(update={"message_id": f"id-{len(seen)}"})

    await send_updates(pipe.connection(), "s", [update_agent_message_text(t) for t in "abc"], prepare)
    written = pipe.bytes_written()
    assert seen == ["a", "b", "c"]
    assert [line.count(b'"messageId":"id-') for line in written.splitlines()] == [1, 1, 1]
    assert written.index(b"id-1") < written.index(b"id-2") < written.index(b"id-3")


async def test_a_closed_connection_raises() -> None:
    pipe = _Pipe(asyncio.get_running_loop())
    connection = pipe.connection()
    await connection.close()
    with pytest.raises(ConnectionError):
        await send_updates(connection, "s", [update_agent_message_text("late")] * 2)


async def test_the_outbox_hands_queued_updates_to_send_many_in_order() -> None:
    batches: list[list[Any]] = []
    one: list[Any] = []

    async def send(update: Any) -> None:
        one.append(update)

    async def send_many(updates: list[Any]) -> None:
        batches.append(list(updates))

    sink = UpdateSink(send, lambda block: [block["text"]], window=0.0, send_many=send_many)
    for i in range(600):
        sink.put(f"u{i}")
    await sink.flush()
    assert one == [] and [u for batch in batches for u in batch] == [f"u{i}" for i in range(600)]
    assert [len(batch) for batch in batches] == [512, 88]  # at most 512 at once
    sink.put("alone")
    await sink.flush()
    assert one == ["alone"]  # a single update goes through ``send``


async def test_a_closed_connection_in_a_batch_drops_the_rest() -> None:
    calls: list[int] = []

    async def send(update: Any) -> None:
        calls.append(1)

    async def send_many(updates: list[Any]) -> None:
        calls.append(len(updates))
        raise ConnectionError("gone")

    sink = UpdateSink(send, lambda block: [block["text"]], window=0.0, send_many=send_many)
    for i in range(3):
        sink.put(i)
    await sink.flush()
    sink.put("later")  # the sink is broken: nothing more is sent
    await sink.flush()
    assert calls == [3]
