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
