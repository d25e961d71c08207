"""``run_off_loop``: blocking work in a worker thread, given up (not waited for) after its time limit."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from langacp.api import run_off_loop


async def test_runs_in_a_worker_thread_and_returns_its_result() -> None:
    assert await run_off_loop(threading.get_ident, 5.0) != threading.get_ident()
    assert await run_off_loop(divmod, None, 7, 2) == (3, 1)


async def test_a_call_over_its_limit_raises_and_the_loop_goes_on() -> None:
    release = threading.Event()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await run_off_loop(release.wait, 0.2, 30.0)
    assert time.monotonic() - started < 5.0
    assert await asyncio.wait_for(asyncio.sleep(0, "still serving"), 1.0) == "still serving"
    release.set()


async def test_an_exception_in_the_call_is_raised_to_the_caller() -> None:
    with pytest.raises(ZeroDivisionError):
        await run_off_loop(divmod, 1.0, 1, 0)


async def test_a_time_out_is_a_plain_timeout_error() -> None:
    # Whether it chains the cancelled wait (``__cause__``) differs between Python 3.11 releases
    # (3.11.2 does not, 3.11.7 does): nothing relies on it, so only the type and message are pinned.
    release = threading.Event()
    with pytest.raises(TimeoutError) as raised:
        await run_off_loop(release.wait, 0.05, 30.0)
    release.set()
    assert type(raised.value) is TimeoutError and str(raised.value) == ""


async def test_no_time_at_all_raises_without_starting_the_call() -> None:
    ran: list[float] = []
    for timeout in (0.0, -1.0):
        with pytest.raises(TimeoutError):
            await run_off_loop(ran.append, timeout, timeout)
    await asyncio.sleep(0.1)
    assert ran == []


async def test_cancelling_the_caller_cancels_the_wait_not_a_time_out() -> None:
    """A turn cancelled while its call runs is cancelled (``CancelledError``), not timed out."""
    release = threading.Event()
    waiting = asyncio.create_task(run_off_loop(release.wait, 30.0, 30.0))
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert waiting.cancelled()
    release.set()
    assert await run_off_loop(divmod, 1.0, 7, 2) == (3, 1)  # the caller's next call is not cancelled
