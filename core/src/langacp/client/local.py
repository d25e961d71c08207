"""The default client handler: the agent's ``fs/*`` and ``terminal/*`` calls served on this machine.

Files are read and written only inside the session's roots (its cwd and additional
directories, symlinks resolved); terminals run locally, each in its own process group, with a
working directory inside those roots. :class:`Terminals` (the ``terminal/*`` methods over
local processes) also serves the test editor of :mod:`langacp.testing.editor`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    ClientCapabilities,
    CreateTerminalResponse,
    FileSystemCapabilities,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

__all__ = ["LocalHandler", "Terminal", "Terminals", "confine", "select_lines"]


@dataclass
class Terminal:
    """One command run for the agent."""

    terminal_id: str
    process: asyncio.subprocess.Process
    limit: int | None
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task[None] | None = None
    killed: bool = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def exit_status(self) -> TerminalExitStatus | None:
        code = self.process.returncode
        if code is None or (self.reader is not None and not self.reader.done()):
            return None
        if code < 0:
            return TerminalExitStatus(exit_code=None, signal=signal.Signals(-code).name)
        return TerminalExitStatus(exit_code=code, signal=None)

    async def read(self) -> None:
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(65536):
            self.output += chunk
            if self.limit is not None and len(self.output) > self.limit:
                del self.output[: len(self.output) - self.limit]  # keep the tail, as the spec says
                while self.output and (self.output[0] & 0xC0) == 0x80:  # at a character boundary
                    del self.output[0]
                self.truncated = True
        await self.process.wait()

    def kill(self) -> None:
        if self.process.returncode is None:
            self.killed = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)

    async def wait(self) -> TerminalExitStatus:
        assert self.reader is not None
        await asyncio.shield(self.reader)
        status = self.exit_status()
        assert status is not None
        return status


class Terminals(dict[str, Terminal]):
    """A client's terminals by id, and the ``terminal/*`` methods over them: each command runs locally.

    A command with ``args`` is run directly, a command line alone by the shell (as editors do),
    each in its own process group, stdin closed, stderr merged into stdout; the output is kept
    up to ``output_byte_limit`` bytes (its tail). The handler decides the working directory.
    """

    def __init__(self) -> None:
        super().__init__()
        self._count = 0

    async def create(
        self, command: str, args: list[str] | None, env: list[Any] | None, cwd: str | None, limit: int | None
    ) -> Terminal:
        """Start the command (-32602 if it cannot be run); its output is read from now on."""
        common: dict[str, Any] = {
            "cwd": cwd,
            "env": {**os.environ, **{v.name: v.value for v in env or []}},
            "stdin": asyncio.subprocess.DEVNULL,
            "stdout": asyncio.subprocess.PIPE,
            "stderr": asyncio.subprocess.STDOUT,
            "start_new_session": True,
        }
        try:
            if args:
                process = await asyncio.create_subprocess_exec(command, *args, **common)
            else:  # a command line, run by the shell as editors do
                process = await asyncio.create_subprocess_shell(command, **common)
        except OSError as exc:
            raise RequestError.invalid_params({"details": f"cannot run {command}: {exc}"}) from None
        self._count += 1
        terminal = Terminal(f"term-{self._count}", process, limit)
        terminal.reader = asyncio.get_running_loop().create_task(terminal.read())
        self[terminal.terminal_id] = terminal
        return terminal

    def find(self, terminal_id: str) -> Terminal:
        """The terminal, or -32002 (resource not found)."""
        terminal = self.get(terminal_id)
        if terminal is None:
            raise RequestError.resource_not_found(terminal_id)
        return terminal

    def output(self, terminal_id: str) -> TerminalOutputResponse:
        terminal = self.find(terminal_id)
        return TerminalOutputResponse(
            output=terminal.output.decode("utf-8", errors="replace"),
            truncated=terminal.truncated,
            exit_status=terminal.exit_status(),
        )

    async def wait_for_exit(self, terminal_id: str) -> WaitForTerminalExitResponse:
        status = await self.find(terminal_id).wait()
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    def kill(self, terminal_id: str) -> KillTerminalResponse:
        self.find(terminal_id).kill()
        return KillTerminalResponse()

    def release(self, terminal_id: str) -> ReleaseTerminalResponse:
        """Kill the command if it still runs and forget the terminal."""
        self.find(terminal_id).kill()
        del self[terminal_id]
        return ReleaseTerminalResponse()

    async def aclose(self) -> None:
        """Kill every command still running and wait (5 s at most each) until its output is read."""
        for terminal in self.values():
            terminal.kill()
        for terminal in list(self.values()):
            if terminal.reader is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(terminal.reader), 5)
        self.clear()


def confine(path: str, roots: Sequence[str]) -> Path:
    """``path`` (absolute), symlinks resolved, if it lies inside one of ``roots``; else -32602."""
    if not os.path.isabs(path):
        raise RequestError.invalid_params({"details": f"path must be absolute: {path}"})
    real = Path(os.path.realpath(path))
    for root in roots:
        base = os.path.realpath(root)
        if real == Path(base) or Path(base) in real.parents:
            return real
    raise RequestError.invalid_params({"details": f"{path} is outside the session's directories"})


def select_lines(text: str, line: int | None, limit: int | None) -> str:
    """What ``fs/read_text_file`` answers: ``limit`` lines from line ``line`` (1-based), or all of ``text``."""
    if line is None and limit is None:
        return text
    lines = text.splitlines(keepends=True)
    start = max(0, (line or 1) - 1)
    return "".join(lines[start : start + limit if limit is not None else None])


_OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
"""The checked path is opened as checked: a link swapped in since is refused, a FIFO does not block."""


def _regular(fd: int, path: Path) -> None:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"not a regular file: {path}")


def _read_regular(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    _regular(fd, path)
    with open(fd, encoding="utf-8") as file:
        return file.read()


def _write_regular(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | _OPEN_FLAGS, 0o666)
    _regular(fd, path)
    os.set_blocking(fd, True)
    with open(fd, "w", encoding="utf-8") as file:
        file.truncate(0)
        file.write(content)


class LocalHandler:
    """Serves ``fs/*`` and ``terminal/*`` locally, confined to each session's directories.

    ``roots`` are allowed for every session (e.g. the directory the agent was spawned in);
    :meth:`add_session` adds a session's cwd and additional directories.
    """

    def __init__(self, roots: Sequence[str | Path] = (), *, fs: bool = True, terminal: bool = True) -> None:
        self.roots = [str(r) for r in roots]
        self.session_roots: dict[str, list[str]] = {}
        self.fs = fs
        self.terminal = terminal
        self.terminals = Terminals()

    @property
    def client_capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs), terminal=self.terminal
        )

    def add_session(self, session_id: str, cwd: str, additional_directories: Sequence[str] = ()) -> None:
        self.session_roots[session_id] = [cwd, *additional_directories]

    def roots_of(self, session_id: str) -> list[str]:
        return [*self.session_roots.get(session_id, []), *self.roots]

    # -- fs ------------------------------------------------------------------------------------

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **_: Any
    ) -> ReadTextFileResponse:
        if not self.fs:
            raise RequestError.method_not_found("fs/read_text_file")
        real = confine(path, self.roots_of(session_id))
        try:
            text = await asyncio.to_thread(_read_regular, real)
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise RequestError.invalid_params({"details": f"cannot read {path}: {exc}"}) from None
        return ReadTextFileResponse(content=select_lines(text, line, limit))

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> WriteTextFileResponse:
        if not self.fs:
            raise RequestError.method_not_found("fs/write_text_file")
        real = confine(path, self.roots_of(session_id))
        try:
            await asyncio.to_thread(_write_regular, real, content)
        except OSError as exc:
            raise RequestError.invalid_params({"details": f"cannot write {path}: {exc}"}) from None
        return WriteTextFileResponse()

    # -- terminals -------------------------------------------------------------------------------

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[Any] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:
        if not self.terminal:
            raise RequestError.method_not_found("terminal/create")
        roots = self.roots_of(session_id)
        workdir = str(confine(cwd, roots)) if cwd else (roots[0] if roots else None)
        terminal = await self.terminals.create(command, args, env, workdir, output_byte_limit)
        return CreateTerminalResponse(terminal_id=terminal.terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> TerminalOutputResponse:
        return self.terminals.output(terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> WaitForTerminalExitResponse:
        return await self.terminals.wait_for_exit(terminal_id)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> KillTerminalResponse:
        return self.terminals.kill(terminal_id)

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> ReleaseTerminalResponse:
        return self.terminals.release(terminal_id)

    async def aclose(self) -> None:
        """Kill every terminal still running."""
        await self.terminals.aclose()
