"""Running a command: in the editor's terminal when it offers one, else as a local subprocess.

Both ways run in a directory of the session, stop at a timeout, keep the tail of the output
and stop the command when the turn is cancelled (``asyncio.CancelledError`` in the tool):

* editor: ``terminal/create``, a ``tool_call_update`` with the terminal so the editor shows
  the output live, ``terminal/wait_for_exit``, ``terminal/output``, ``terminal/release``
  (``terminal/kill`` first on a timeout or a cancel);
* local: ``bash -c`` (``sh`` without bash) in a new process group; on a timeout or a cancel
  the whole group gets SIGTERM, then SIGKILL. The command's turn ends when the command
  exits: what it leaves running in the background (``server &``) does not hold the turn open
  (its output is not waited for) and is stopped when the session closes. Every group is
  registered with the core's watchdog (``langacp.processes``), so none outlives the agent,
  even after ``kill -9``. The run is reported through ``langacp.api.open_terminal``: an ACP v2
  client sees it as a terminal of the tool call (output as it comes, exit status) and may
  cancel it (``terminal/cancel``): the command is stopped, the tool says so and the turn goes on.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import shutil
import signal
import stat
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import ToolException

from langacp.api import (
    AgentTerminal,
    SessionContext,
    SessionPaths,
    killpg,
    open_terminal,
    stop_group,
    unwatch_group,
    watch_group,
)
from langacp_client_tools.access import ClientAccess, locate
from langacp_client_tools.files import off_loop
from langacp_client_tools.settings import Settings

__all__ = ["CommandRunner", "Outcome", "TailBuffer"]

log = logging.getLogger("langacp_client_tools")

DRAIN_TIMEOUT = 2.0
"""Seconds to wait for the last output once a local command has exited."""
BACKGROUND_DRAIN = 0.05
"""Seconds to collect output once a command exited leaving background processes (they may hold the pipe)."""
CLIENT_CLEANUP_TIMEOUT = 5.0
EXIT_POLL = 0.02
"""Seconds between looks at whether a local command has exited."""
READ_SIZE = 65536
OUTPUT_WINDOW = 1 / 60
"""Seconds a shown command's output gathers before it is sent: one ``terminal_output_chunk`` per
frame of a 60 Hz display, not one per write, for a command that prints line by line."""
BACKGROUND_POLL = 0.2
"""Seconds between looks at whether what a command left running (shown as a terminal) has ended."""


@dataclass
class Outcome:
    """How a command ended and what it printed (the tail)."""

    output: str
    truncated: bool = False
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False
    cancelled: bool = False
    """The client cancelled the command's terminal (``terminal/cancel``)."""

    def text(self, timeout: float, limit: int) -> str:
        """The tool result the model reads."""
        parts: list[str] = []
        if self.truncated:
            parts.append(f"… (output truncated: only the last {limit} bytes are kept)")
        parts.append(self.output.rstrip("\n") if self.output.strip() else "(no output)")
        if self.cancelled:
            parts.append("Cancelled: the user stopped the command.")
        elif self.timed_out:
            parts.append(f"Timed out after {timeout:g} s: the command was stopped.")
        elif self.signal:
            parts.append(f"Stopped by signal {self.signal}.")
        elif self.exit_code is not None:
            parts.append(f"Exit code: {self.exit_code}")
        return "\n".join(parts)


class TailBuffer:
    """Keeps the last ``limit`` bytes written to it."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.data = bytearray()
        self.truncated = False

    def write(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]
            self.truncated = True

    def text(self) -> str:
        data = bytes(self.data)
        if self.truncated:  # the cut may fall inside a UTF-8 character
            while data and (data[0] & 0xC0) == 0x80:
                data = data[1:]
        return data.decode("utf-8", errors="replace")

    async def read_from(self, stream: asyncio.StreamReader, terminal: AgentTerminal | None = None) -> None:
        """Read ``stream`` to its end; a ``terminal`` shown to the client gets it a frame at a time."""
        shown = terminal is not None and terminal.shown
        while chunk := await stream.read(READ_SIZE):
            if shown:
                chunk += await _more(stream, OUTPUT_WINDOW, READ_SIZE - len(chunk))
            self.write(chunk)
            if terminal is not None:
                await terminal.output(chunk)


async def _more(stream: asyncio.StreamReader, window: float, limit: int) -> bytes:
    """What else arrives within ``window`` seconds (up to ``limit`` bytes; less at the end of the stream)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + window
    data = bytearray()
    while len(data) < limit and (left := deadline - loop.time()) > 0:
        try:
            more = await asyncio.wait_for(stream.read(limit - len(data)), left)  # a cancelled read loses nothing
        except TimeoutError:
            break
        if not more:
            break
        data += more
    return bytes(data)


_GATED = 'IFS= read -r _ || exit 126; exec </dev/null; exec "$0" -c "$1"'
"""The shell waits for one line on stdin before it runs the command (``$1``) with stdin from /dev/null.

The agent writes that line only once the command's process group is registered with the watchdog,
so a ``kill -9`` of the agent can never fall between the start of a command and its registration:
if the agent dies first, stdin closes, ``read`` fails and the command never runs.
"""


def _open_gate(process: asyncio.subprocess.Process) -> None:
    """Let the gated command run (see :data:`_GATED`)."""
    if process.stdin is not None:
        process.stdin.write(b"\n")
        process.stdin.close()


async def _exited(process: asyncio.subprocess.Process, stop: asyncio.Event) -> None:
    """Once the command exits, or ``stop`` is set (the client cancelled its terminal).

    Not ``process.wait()``: on CPython's own event loop that also waits until every pipe is closed,
    and a background child (``cmd &``) keeps the output pipe open for as long as it runs.
    """
    while process.returncode is None and not stop.is_set():
        await asyncio.sleep(EXIT_POLL)


def _exit_status(process: asyncio.subprocess.Process) -> tuple[int | None, str | None]:
    """The exit code, or the name of the signal that ended the command (``(None, None)``: unknown)."""
    code = process.returncode
    if code is None:
        return None, None
    return (code, None) if code >= 0 else (None, _signal_name(-code))


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


class CommandRunner:
    """One session's commands; remembers what is running so a closing session stops it."""

    def __init__(
        self, session: SessionContext, access: ClientAccess, settings: Settings, paths: SessionPaths | None = None
    ) -> None:
        self.session = session
        self.access = access
        self.settings = settings
        self.paths = paths or SessionPaths(session.cwd, session.additional_directories)
        # Dicts used as ordered sets: an empty dict is a third of an empty set, and most sessions run none.
        self.processes: dict[asyncio.subprocess.Process, None] = {}
        self.background: dict[asyncio.subprocess.Process, None] = {}
        """Commands that exited leaving processes in their group: stopped when the session closes."""
        self.terminals: dict[str, None] = {}
        self._cleanups: dict[asyncio.Task[None], None] = {}

    async def run(
        self, command: str, cwd: str | None = None, timeout: float | None = None, tool_call_id: str | None = None
    ) -> tuple[str, dict[str, Any] | None]:
        """Run ``command``; returns the result text and the artifact (the terminal id, if any)."""
        if not isinstance(command, str) or not command.strip():
            raise ToolException("command must not be empty")
        locate_dir = functools.partial(locate, files=False)
        where, mode = await off_loop(locate_dir, self.paths, cwd or ".", "used as a working directory")
        if mode is None or not stat.S_ISDIR(mode):
            raise ToolException(f"{cwd} is not a directory")
        seconds = self.settings.command_timeout(timeout)
        if self.access.terminal:
            outcome, terminal_id = await self._in_terminal(command, where.sent, seconds, tool_call_id)
            return outcome.text(seconds, self.settings.output_limit), {"terminal_id": terminal_id}
        outcome = await self._locally(command, where.real, seconds, tool_call_id)
        return outcome.text(seconds, self.settings.output_limit), None

    # -- the editor's terminal ----------------------------------------------------------------

    async def _in_terminal(
        self, command: str, cwd: str, seconds: float, tool_call_id: str | None
    ) -> tuple[Outcome, str]:
        from acp import RequestError, tool_terminal_ref, update_tool_call

        client, sid = self.session.client, self.session.session_id
        creating = asyncio.ensure_future(
            client.create_terminal(
                session_id=sid, command=command, cwd=cwd, output_byte_limit=self.settings.output_limit
            )
        )
        try:
            created = await asyncio.shield(creating)
        except RequestError as exc:
            raise ToolException(f"the editor could not start the command: {exc}") from exc
        except asyncio.CancelledError:
            # Cancelled while the editor was starting it (or just after: the answer is then lost
            # to the cancel): release the terminal once it exists.
            self._background(self._release_created(creating))
            raise
        terminal_id = str(created.terminal_id)
        self.terminals[terminal_id] = None
        try:
            if tool_call_id and self.session.send_update is not None:
                # Shown at once: the editor streams the terminal's output in the tool call.
                await self.session.send_update(update_tool_call(tool_call_id, content=[tool_terminal_ref(terminal_id)]))
            timed_out = False
            try:
                exited = await asyncio.wait_for(
                    client.wait_for_terminal_exit(session_id=sid, terminal_id=terminal_id), seconds
                )
            except TimeoutError:
                timed_out, exited = True, None
                await client.kill_terminal(session_id=sid, terminal_id=terminal_id)
            output = await client.terminal_output(session_id=sid, terminal_id=terminal_id)
        except BaseException:  # cancelled (or the client failed): stop it, without holding up the cancel
            self.terminals.pop(terminal_id, None)
            self._background(self._release(terminal_id, kill=True))
            raise
        # Shielded: a cancel arriving now must not leave the terminal unreleased.
        await asyncio.shield(self._background(self._release(terminal_id, kill=False)))
        status = output.exit_status or exited
        tail = TailBuffer(self.settings.output_limit)  # in case the editor kept more than asked
        tail.write(str(output.output).encode("utf-8", errors="replace"))
        return (
            Outcome(
                output=tail.text(),
                truncated=bool(output.truncated) or tail.truncated,
                exit_code=getattr(status, "exit_code", None),
                signal=getattr(status, "signal", None),
                timed_out=timed_out,
            ),
            terminal_id,
        )

    async def _release_created(self, creating: asyncio.Future[Any]) -> None:
        try:
            created = await asyncio.wait_for(creating, CLIENT_CLEANUP_TIMEOUT)
        except Exception:  # noqa: BLE001 - never created (or the client is gone): nothing to release
            return
        await self._release(str(created.terminal_id), kill=True)

    async def _release(self, terminal_id: str, *, kill: bool) -> None:
        client, sid = self.session.client, self.session.session_id
        self.terminals.pop(terminal_id, None)
        if kill:
            try:
                await asyncio.wait_for(client.kill_terminal(session_id=sid, terminal_id=terminal_id), 5)
            except Exception as exc:  # noqa: BLE001 - the client may be gone; release anyway
                log.warning("langacp-client-tools: terminal/kill %s failed: %s", terminal_id, exc)
        try:
            await asyncio.wait_for(client.release_terminal(session_id=sid, terminal_id=terminal_id), 5)
        except Exception as exc:  # noqa: BLE001
            log.warning("langacp-client-tools: terminal/release %s failed: %s", terminal_id, exc)

    # -- a local subprocess -----------------------------------------------------------------

    async def _locally(self, command: str, cwd: str, seconds: float, tool_call_id: str | None = None) -> Outcome:
        shell = shutil.which("bash") or "/bin/sh"
        spawning = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                shell,
                "-c",
                _GATED,
                shell,
                command,
                cwd=cwd,
                stdin=asyncio.subprocess.PIPE,  # the gate (see _GATED); the command itself reads /dev/null
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopping it stops its children too
            )
        )
        try:
            process = await asyncio.shield(spawning)
        except OSError as exc:
            raise ToolException(f"cannot start the command: {exc}") from exc
        except asyncio.CancelledError:  # cancelled while it was starting: stop it once it exists
            self._background(self._stop_spawned(spawning))
            raise
        self.processes[process] = None
        watch_group(process.pid)
        _open_gate(process)
        stop = asyncio.Event()
        limit = self.settings.output_limit
        terminal = await open_terminal(
            self.session, command, cwd, tool_call_id=tool_call_id, cancel=stop.set, output_limit=limit
        )
        tail = TailBuffer(limit)
        assert process.stdout is not None
        reader = asyncio.get_running_loop().create_task(tail.read_from(process.stdout, terminal))
        timed_out = cancelled = False
        try:
            try:
                await asyncio.wait_for(_exited(process, stop), seconds)
            except TimeoutError:
                timed_out = True
                await self._stop(process)
            else:
                if process.returncode is None:  # the client cancelled its terminal: the turn goes on
                    cancelled = True
                    await self._stop(process)
        except BaseException:  # cancelled: stop the command, without holding up the cancel
            reader.cancel()
            self.processes.pop(process, None)
            self._background(self._stop(process, terminal))
            raise
        self.processes.pop(process, None)
        left_behind = not timed_out and killpg(process.pid, 0)
        if left_behind:  # `cmd &`: the turn goes on; the session stops them when it closes
            self.background[process] = None
        else:
            unwatch_group(process.pid)
        detach = left_behind and terminal.shown  # shown live: its terminal runs on as background work
        try:
            await asyncio.wait_for(asyncio.shield(reader), BACKGROUND_DRAIN if left_behind else DRAIN_TIMEOUT)
        except TimeoutError:
            if not detach:
                reader.cancel()  # a background process holds the pipe; keep what was read
        exit_code, signal_name = _exit_status(process)
        if detach:
            await terminal.detach()
            self._background(self._watch(process, terminal, stop, reader))
        else:
            await terminal.exited(exit_code, signal_name)
        return Outcome(
            output=tail.text(),
            truncated=tail.truncated,
            exit_code=exit_code,
            signal=signal_name if not timed_out else None,
            timed_out=timed_out,
            cancelled=cancelled,
        )

    async def _watch(
        self,
        process: asyncio.subprocess.Process,
        terminal: AgentTerminal,
        stop: asyncio.Event,
        reader: asyncio.Task[None],
    ) -> None:
        """A detached command: its terminal exits once its process group is gone, or stopped (cancel, close)."""
        while process in self.background and killpg(process.pid, 0) and not stop.is_set():
            await asyncio.sleep(BACKGROUND_POLL)
        stopped = process not in self.background or stop.is_set()
        if process in self.background:
            if stop.is_set():
                await self._stop(process)
            else:  # everything it left running has ended
                self.background.pop(process, None)
                unwatch_group(process.pid)
        try:
            await asyncio.wait_for(asyncio.shield(reader), DRAIN_TIMEOUT)
        except TimeoutError:
            reader.cancel()
        await terminal.exited(*((None, "SIGTERM") if stopped else _exit_status(process)))

    async def _stop_spawned(self, spawning: asyncio.Future[asyncio.subprocess.Process]) -> None:
        try:
            process = await spawning
        except Exception:  # noqa: BLE001 - it never started
            return
        if process.stdin is not None:
            process.stdin.close()  # the gate closes unopened: the command never runs
        await self._stop(process)

    async def _stop(self, process: asyncio.subprocess.Process, terminal: AgentTerminal | None = None) -> None:
        """SIGTERM to the command's process group, SIGKILL after the grace period; ``terminal`` told."""
        await stop_group(process, self.settings.kill_grace, wait=DRAIN_TIMEOUT)
        self.processes.pop(process, None)
        self.background.pop(process, None)
        if terminal is not None:
            await terminal.exited(*_exit_status(process))

    # -- clean-up ------------------------------------------------------------------------------

    def _background(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run clean-up work in its own task: a cancel of the tool does not stop it; a closing session awaits it."""
        task = asyncio.get_running_loop().create_task(work, name="langacp_client_tools.cleanup")
        self._cleanups[task] = None
        task.add_done_callback(self._forget_cleanup)
        return task

    def _forget_cleanup(self, task: asyncio.Task[None]) -> None:
        self._cleanups.pop(task, None)

    async def aclose(self) -> None:
        """Stop every command still running (the session is closing)."""
        for process in [*self.processes, *self.background]:
            self._background(self._stop(process))
        for terminal_id in list(self.terminals):
            self._background(self._release(terminal_id, kill=True))
        if self._cleanups:
            await asyncio.wait(list(self._cleanups), timeout=CLIENT_CLEANUP_TIMEOUT)
