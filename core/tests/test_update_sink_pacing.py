"""``UpdateSink`` pacing: tokens join while a session streams, a pause or a flush sends at once.

Windows here are an hour long, so a sink that waited for one would hang the test; what is
checked is which sends wait and for how long they are scheduled, never how fast anything ran.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langacp.bridge.outbox import MAX_TEXT_WINDOW, UpdateSink

HOUR = 3600.0


class Sent:
    """The texts a sink sent, in order."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.changed = asyncio.Event()

    async def send(self, update: Any) -> None:
        self.texts.append(update)
        self.changed.set()

    async def until(self, count: int) -> None:
        while len(self.texts) < count:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)


def text_sink(sent: Sent, window: float = HOUR) -> UpdateSink:
    return UpdateSink(sent.send, lambda block: [block["text"]], window=window)


async def test_a_token_after_a_pause_goes_at_once_and_the_next_ones_join() -> None:
    sent = Sent()
    sink = text_sink(sent)
    sink.put_block({"type": "text", "text": "a"})
    await sent.until(1)  # idle session: not held for a window
    for token in "bcd":
        sink.put_block({"type": "text", "text": token})
    await asyncio.sleep(0.01)
    assert sent.texts == ["a"], "tokens right after a send wait for the window"
    await asyncio.wait_for(sink.flush(), 10)  # the end of a turn does not wait for it
    assert sent.texts == ["a", "bcd"]
    await sink.aclose()


async def test_other_updates_keep_their_order_around_text() -> None:
    sent = Sent()
    sink = UpdateSink(sent.send, lambda block: [block["text"]], window=HOUR)
    sink.put_block({"type": "text", "text": "a"})
    await sent.until(1)
    sink.put_block({"type": "text", "text": "b"})
    sink.put("tool call")
    sink.put_block({"type": "text", "text": "c"})
    sink.put_block({"type": "text", "text": "d"})
    await asyncio.wait_for(sink.flush(), 10)
    assert sent.texts == ["a", "b", "tool call", "cd"]
    await sink.aclose()


def _recording_delays(monkeypatch: Any) -> list[float]:
    """The delays of the windows sinks wait from now on (the loop's timers that release a sink)."""
    loop = asyncio.get_running_loop()
    scheduled: list[float] = []
    call_later = loop.call_later

    def recording(delay: float, callback: Any, *args: Any) -> Any:
        if getattr(callback, "__module__", "") == "langacp.bridge.outbox":
            scheduled.append(delay)
        return call_later(delay, callback, *args)

    monkeypatch.setattr(loop, "call_later", recording)
    return scheduled


async def _streaming_sessions(count: int, window: float, max_window: float) -> list[tuple[UpdateSink, Sent]]:
    """``count`` sinks that each sent a token and now hold the next one in their window."""
    streams = []
    for _ in range(count):
        sent = Sent()
        sink = UpdateSink(sent.send, lambda block: [block["text"]], window=window, max_window=max_window)
        sink.put_block({"type": "text", "text": "first"})
        await sent.until(1)
        sink.put_block({"type": "text", "text": "second"})
        for _ in range(3):
            await asyncio.sleep(0)  # the sink wakes and starts its window
        streams.append((sink, sent))
    return streams


async def _finish(streams: list[tuple[UpdateSink, Sent]]) -> None:
    for sink, sent in streams:
        await asyncio.wait_for(sink.flush(), 10)
        assert sent.texts == ["first", "second"]
        await sink.aclose()


async def test_a_sessions_window_grows_with_the_sessions_streaming_at_once(monkeypatch: Any) -> None:
    scheduled = _recording_delays(monkeypatch)
    streams = await _streaming_sessions(3, 60.0, HOUR)
    # The first session waits one window, the second two (one other streams), the third three.
    assert len(scheduled) == 3
    assert scheduled[0] <= 60 < scheduled[1] <= 120 < scheduled[2] <= 180
    await _finish(streams)


async def test_the_growth_is_capped(monkeypatch: Any) -> None:
    scheduled = _recording_delays(monkeypatch)
    streams = await _streaming_sessions(3, 60.0, 100.0)
    assert len(scheduled) == 3
    assert scheduled[0] <= 60 < scheduled[1] <= 100 and 60 < scheduled[2] <= 100
    await _finish(streams)


def test_the_default_cap_keeps_text_flowing() -> None:
    assert 0.005 < MAX_TEXT_WINDOW <= 0.1  # ten messages a second per session at the least


async def test_which_queued_blocks_join() -> None:
    """Blocks queued behind a send join by fixed rules: same kind, nothing but text and the stream's index / id."""
    sent = Sent()
    sink = UpdateSink(sent.send, lambda block: [block], window=HOUR)
    sink.put_block({"type": "text", "text": "first"})
    await sent.until(1)
    sink.put_block({"type": "text", "text": "a", "extras": {"x": 1}})  # its own keys stay: it starts a message
    sink.put_text("b")
    sink.put_block({"type": "text", "text": "c", "index": 0, "id": "m"})
    sink.put_block({"type": "text", "text": "d", "extras": {"y": 2}})  # keys of its own: not joined
    sink.put_block({"type": "reasoning", "reasoning": "r1"})
    sink.put_block({"type": "reasoning", "reasoning": "r2", "index": 1})
    sink.put_text("e")
    sink.put_block({"type": "image", "url": "u"})
    sink.put_text("f")
    await asyncio.wait_for(sink.flush(), 10)
    assert sent.texts == [
        {"type": "text", "text": "first"},
        {"type": "text", "text": "abc", "extras": {"x": 1}},
        {"type": "text", "text": "d", "extras": {"y": 2}},
        {"type": "reasoning", "reasoning": "r1r2"},
        {"type": "text", "text": "e"},
        {"type": "image", "url": "u"},
        {"type": "text", "text": "f"},
    ]
    await sink.aclose()


async def test_joined_text_is_capped() -> None:
    sent = Sent()
    sink = UpdateSink(sent.send, lambda block: [block["text"]], window=HOUR)
    sink.put_text("first")
    await sent.until(1)
    chunk = "x" * 1000
    for _ in range(100):
        sink.put_text(chunk)
    await asyncio.wait_for(sink.flush(), 10)
    assert "".join(sent.texts[1:]) == chunk * 100
    assert len(sent.texts) == 3 and all(len(text) <= 65 * 1024 for text in sent.texts)
    await sink.aclose()


def _senders() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == "langacp.updates"]


async def test_an_idle_sink_holds_no_task_and_starts_again_for_the_next_update() -> None:
    """A session that waits for its next prompt keeps no sender task (memory per open session)."""
    sent = Sent()
    sink = UpdateSink(sent.send, lambda block: [block["text"]], window=0.0)
    for round_ in range(3):
        sink.put(f"update {round_}")
        sink.put_block({"type": "text", "text": f"text {round_}"})
        assert len(_senders()) == 1
        await asyncio.wait_for(sink.flush(), 10)
        await asyncio.sleep(0)
        assert _senders() == []
    assert sent.texts == ["update 0", "text 0", "update 1", "text 1", "update 2", "text 2"]
    await asyncio.wait_for(sink.flush(), 10)  # idle: returns at once
    await sink.aclose()


async def test_updates_put_from_another_threads_loop_are_sent_by_the_sessions_loop() -> None:
    """A sync tool's async callbacks run in a worker thread on a loop of its own (LangChain's
    callback manager): what they put is sent by a sender on the session's loop, in order, and a
    flush on either loop returns once it is written (a sender made on the worker's loop would
    die with it, and the session's flush would wait forever)."""
    session_loop = asyncio.get_running_loop()
    sent = Sent()
    senders_on: list[asyncio.AbstractEventLoop] = []

    async def send(update: Any) -> None:
        senders_on.append(asyncio.get_running_loop())
        await sent.send(update)

    sink = UpdateSink(send, lambda block: [block["text"]], window=HOUR)

    async def worker() -> None:  # the worker thread's own loop, as a sync tool's callbacks get
        assert asyncio.get_running_loop() is not session_loop
        assert sink.tail() is None  # never hands the worker an update the sender may be sending
        sink.put("tool call started")
        sink.put_block({"type": "text", "text": "a"})
        sink.put_text("b")
        sink.put("tool call finished")
        await asyncio.wait_for(sink.flush(), 10)  # from the worker's loop too

    await asyncio.wait_for(asyncio.to_thread(asyncio.run, worker()), 10)
    assert sent.texts == ["tool call started", "ab", "tool call finished"]  # the worker's flush waited for them
    await asyncio.wait_for(sink.flush(), 10)
    assert sent.texts == ["tool call started", "ab", "tool call finished"]
    assert set(senders_on) == {session_loop}
    await asyncio.sleep(0)
    assert _senders() == []
    await sink.aclose()


async def test_updates_put_from_a_plain_thread_keep_their_order() -> None:
    """A thread with no loop at all (a sync callback) hands its updates to the session's loop."""
    sent = Sent()
    sink = UpdateSink(sent.send, lambda block: [block["text"]], window=0.0)
    sink.put("first")

    def plain() -> None:
        for i in range(5):
            sink.put(f"from thread {i}")

    await asyncio.to_thread(plain)  # its hand-overs run on this loop before the thread's end is seen
    sink.put("last")
    await asyncio.wait_for(sink.flush(), 10)
    assert sent.texts == ["first", *(f"from thread {i}" for i in range(5)), "last"]
    await sink.aclose()


def test_a_sink_is_made_on_its_sessions_loop() -> None:
    """Without a running loop there is no session loop to bind the sender to: refused, not guessed."""
    import pytest

    with pytest.raises(RuntimeError):
        UpdateSink(Sent.__new__(Sent).send)
