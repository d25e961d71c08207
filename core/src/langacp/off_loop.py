"""Blocking work off the event loop: one worker-thread call, with a time limit."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar, TypeVarTuple

__all__ = ["run_off_loop"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


async def run_off_loop(fn: Callable[[*Ts], T], timeout: float | None, *args: *Ts) -> T:
    """``fn(*args)`` in a worker thread; ``TimeoutError`` if it takes more than ``timeout`` seconds.

    ``timeout=None``: no limit. A thread cannot be stopped: on a time-out ``fn`` runs on and its
    result is dropped, while the caller (and the event loop) goes on.
    """
    if timeout is None:
        return await asyncio.to_thread(fn, *args)
    if timeout <= 0:
        raise TimeoutError  # no time at all: ``fn`` never starts (as ``asyncio.wait_for`` did)
    async with asyncio.timeout(timeout):  # in this task: no task of its own per call, as wait_for makes
        return await asyncio.to_thread(fn, *args)
