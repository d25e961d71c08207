"""Child processes that never outlive the agent, even when it is killed with ``kill -9``.

A plugin that starts a process (a command, a server) starts it in a process group of its own
(``start_new_session=True``), stops the whole group (:func:`stop_group`) on cancel and when the
session closes, and registers the group with :func:`watch_group`. The first registration
starts a small **watchdog** process, in a session of its own, that holds the read end of a
pipe from the agent. When the agent ends for any reason (exit, crash, ``kill -9``) the pipe
closes and the watchdog sends SIGTERM, then SIGKILL, to every group still registered, then
exits. A parent-death signal would only reach the direct child, not what it started; the
watchdog reaches the whole group.

Public API for plugins: :func:`watch_group`, :func:`unwatch_group`, :func:`stop_group`,
:func:`killpg`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
from typing import Any

__all__ = ["child_pids", "killpg", "stop_group", "unwatch_group", "watch_group", "watching_new_groups"]

log = logging.getLogger("langacp.processes")

WATCHDOG_GRACE = 0.5
"""Seconds between the watchdog's SIGTERM and SIGKILL."""

_WATCHDOG = r"""
import os, signal, sys, time
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
    signal.signal(s, signal.SIG_IGN)
groups = set()
for line in sys.stdin.buffer:
    op, _, pgid = line.strip().partition(b" ")
    if pgid.isdigit():
        (groups.add if op == b"+" else groups.discard)(int(pgid))
def send(sig):
    for g in list(groups):
        try:
            os.killpg(g, sig)
        except OSError:
            groups.discard(g)
send(signal.SIGTERM)
if groups:
    time.sleep(%(grace)s)
    send(signal.SIGKILL)
"""

_lock = threading.Lock()
_watchdog: subprocess.Popen[bytes] | None = None
_watched: collections.Counter[int] = collections.Counter()
"""Registered groups, each with how many owners registered it (two watchers may see the same child)."""


def _tell(line: str) -> None:
    global _watchdog
    with _lock:
        if _watchdog is None or _watchdog.poll() is not None:
            if not line.startswith("+"):
                return
            try:
                _watchdog = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", _WATCHDOG % {"grace": WATCHDOG_GRACE}],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # a signal to the agent's group must not stop it first
                    close_fds=True,
                )
            except OSError as exc:
                log.warning("langacp: cannot start the process watchdog: %s", exc)
                return
            for pgid in _watched:  # a watchdog that died is replaced, with what it knew
                _write(f"+ {pgid}\n")
        _write(line)


def _write(line: str) -> None:
    assert _watchdog is not None and _watchdog.stdin is not None
    try:
        _watchdog.stdin.write(line.encode())
        _watchdog.stdin.flush()
    except OSError as exc:
        log.warning("langacp: the process watchdog is gone: %s", exc)


def watch_group(pgid: int) -> None:
    """Have process group ``pgid`` killed if the agent dies before :func:`unwatch_group`.

    Registrations are counted: a group registered twice (two watchers that saw the same child)
    stays watched until both have called :func:`unwatch_group`.
    """
    _watched[pgid] += 1
    if _watched[pgid] == 1:
        _tell(f"+ {pgid}\n")


def unwatch_group(pgid: int) -> None:
    """Group ``pgid`` is stopped (or its owner will stop it): the watchdog forgets it."""
    if _watched[pgid] > 1:
        _watched[pgid] -= 1
        return
    _watched.pop(pgid, None)
    _tell(f"- {pgid}\n")


def killpg(pgid: int, sig: int) -> bool:
    """Send ``sig`` to process group ``pgid``; ``False`` if the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


async def stop_group(process: Any, grace: float, *, wait: float = 2.0) -> None:
    """SIGTERM to ``process``'s group (its pid is the group id), SIGKILL after ``grace`` seconds.

    ``process`` is an ``asyncio.subprocess.Process`` started with ``start_new_session=True``.
    Waits up to ``wait`` seconds for the leader to be reaped, then forgets the group.
    """
    pgid = process.pid
    if killpg(pgid, signal.SIGTERM):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
        killpg(pgid, signal.SIGKILL)  # members other than the leader (background children) too
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), wait)
    unwatch_group(pgid)


def child_pids() -> set[int]:
    """This process's children (Linux ``/proc``; empty elsewhere)."""
    pids: set[int] = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids.update(int(pid) for pid in f.read().split())
        except (OSError, ValueError):
            continue
    return pids


class watching_new_groups:
    """Watch the process groups that children started inside the ``with`` block lead.

    For a library that spawns a process without telling its pid (the MCP SDK starts each
    stdio server in a session of its own): the new children that lead their own group are
    registered with the watchdog on entering (call :meth:`collect` once the process is
    started) and forgotten on leaving.

    A child can still be finishing its ``exec`` when the spawning call returns: Linux closes
    the close-on-exec pipe that ``subprocess`` waits on before it sets up the new program's
    arguments, so for a moment ``/proc/PID/cmdline`` is empty and the child cannot be told
    from another spawn. :meth:`collect` leaves such a child in :attr:`starting`; call it again
    once the program has surely started (it has answered), and it is registered then, or
    await :meth:`settle`, which collects again until the exec is done.
    """

    def __init__(self, argv: list[str] | None = None) -> None:
        self._before: set[int] = set()
        self._argv = argv
        self.groups: set[int] = set()
        self.starting: set[int] = set()
        """New group leaders whose command line was still empty (mid-``exec``) at the last :meth:`collect`."""

    def __enter__(self) -> watching_new_groups:
        self._before = child_pids()
        return self

    def collect(self) -> set[int]:
        """Register the groups led by children born since entering; returns them (see :attr:`starting`)."""
        self.starting.clear()
        for pid in child_pids() - self._before - self.groups:
            try:
                if os.getpgid(pid) != pid:
                    continue
                same = self._same_command(pid)
            except OSError:
                continue
            if same is None:
                self.starting.add(pid)
            if not same:
                continue
            self.groups.add(pid)
            watch_group(pid)
        return self.groups

    async def settle(self, timeout: float = 1.0) -> set[int]:
        """:meth:`collect` until no new child is mid-``exec`` (or ``timeout`` s); returns the groups.

        A child's group is registered as soon as its command line can be read. Finishing an
        ``exec`` takes microseconds of CPU, but a busy machine can delay it; the loop is not
        blocked meanwhile.
        """
        deadline = asyncio.get_running_loop().time() + timeout
        self.collect()
        while self.starting and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.005)
            self.collect()
        return self.groups

    def _same_command(self, pid: int) -> bool | None:
        """Whether ``pid`` runs ``argv`` (its arguments end the command line: a script's interpreter may lead).

        ``None`` while its command line is empty: its ``exec`` is not finished.
        """
        if not self._argv:
            return True
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = [part.decode(errors="replace") for part in f.read().split(b"\0") if part]
        if not cmdline:
            with open(f"/proc/{pid}/stat", "rb") as f:
                state = f.read().rpartition(b")")[2].split()[:1]
            return False if state == [b"Z"] else None  # a zombie has no command line either
        command, args = self._argv[0], self._argv[1:]
        if args:
            return cmdline[-len(args) :] == args
        return os.path.basename(command) in {os.path.basename(part) for part in cmdline[:2]}

    def __exit__(self, *exc: object) -> None:
        for pgid in self.groups:
            unwatch_group(pgid)
        self.groups.clear()
