"""Waiting in tests without sleeping blindly: for a process to go, a file to be written, a condition."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["alive", "eventually", "gone", "wait_for_file", "wait_until_gone"]

_STEP = 0.05


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    status = Path(f"/proc/{pid}/status")
    try:
        return "\nState:\tZ" not in status.read_text()
    except OSError:
        return not status.parent.exists() and sys.platform != "linux"


async def eventually(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll until ``predicate()`` holds; an assertion error after ``timeout`` s."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the condition never held")
        await asyncio.sleep(_STEP)


async def wait_until_gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    """Poll until none of ``pids`` is alive; returns those still alive at the deadline."""
    try:
        await eventually(lambda: not any(alive(pid) for pid in pids), timeout)
    except AssertionError:
        pass
    return [pid for pid in pids if alive(pid)]


async def gone(pid: int, timeout: float = 15.0) -> bool:
    """Wait until process ``pid`` is gone; ``False`` if it is still there after ``timeout`` s."""
    return not await wait_until_gone([pid], timeout)


async def wait_for_file(path: Path, timeout: float = 15.0) -> str:
    """The stripped text of ``path`` once it exists and is not blank."""
    try:
        await eventually(lambda: path.exists() and bool(path.read_text().strip()), timeout)
    except AssertionError:
        raise AssertionError(f"{path} was never written") from None
    return path.read_text().strip()
