"""Flips links as fast as it can until stopped (SIGTERM), then prints how many flips it did.

``python security_flipper.py link WORK INSIDE OUTSIDE``: ``WORK/link`` points at INSIDE, then
OUTSIDE, … ``python security_flipper.py directory WORK OUTSIDE_DIR``: ``WORK/sub`` is a real
directory, then a link to OUTSIDE_DIR, … Each flip swaps two names atomically
(``renameat2(RENAME_EXCHANGE)``), so the name always exists. A process of its own, so the
flips go on at full speed whatever the test process is doing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from pathlib import Path

stopped = False
AT_FDCWD = -100
RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(None, use_errno=True)


def exchange(a: Path, b: Path) -> None:
    """Swap two names atomically."""
    if _libc.renameat2(AT_FDCWD, bytes(a), AT_FDCWD, bytes(b), RENAME_EXCHANGE) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _stop(*_: object) -> None:
    global stopped
    stopped = True


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    mode, work = sys.argv[1], Path(sys.argv[2])
    flips = 0
    name = "link" if mode == "link" else "sub"
    os.symlink(sys.argv[4] if mode == "link" else sys.argv[3], work / f".{name}-other")
    print("ready", flush=True)
    while not stopped:
        exchange(work / name, work / f".{name}-other")
        flips += 1
    if flips % 2:  # leave the workspace as it started: sub a real directory, link pointing inside
        exchange(work / name, work / f".{name}-other")
    os.unlink(work / f".{name}-other")
    print(flips, flush=True)


if __name__ == "__main__":
    main()
