"""A test client that acts like an editor: ``fs/*`` and ``terminal/*`` done for real.

:class:`EditorClient` is a :class:`~langacp.client.RecordingClient` that also answers
``fs/read_text_file`` (from its unsaved ``buffers`` first, then the disk),
``fs/write_text_file`` (writes the file, and the buffer if one is open) and every
``terminal/*`` method (it really runs the command, in its own process group). It declares
those capabilities in ``initialize`` only when ``fs`` / ``terminal`` are true, and records
every request it gets in ``calls``, so a test can also prove an agent did *not* ask::

    client = EditorClient(buffers={str(path): "unsaved text"})
    async with serve(target, plugins=["client-tools"], client=client) as agent:
        ...
"""

from __future__ import annotations

import asyncio
import contextlib
import os
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
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from langacp.client.local import Terminal
from langacp.client.testing_client import RecordingClient

__all__ = ["EditorClient", "Terminal"]


@dataclass
class EditorClient(RecordingClient):
    """A recording client that reads and writes files and runs terminals like an editor would."""

    fs: bool = True
    """Declare (and serve) ``fs.readTextFile`` and ``fs.writeTextFile``."""
    terminal: bool = True
    """Declare (and serve) ``terminal``."""
    buffers: dict[str, str] = field(default_factory=dict)
    """Unsaved editor buffers by absolute path: read instead of the file on disk."""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Every ``fs/*`` and ``terminal/*`` request, in order: (method, params)."""
    terminals: dict[str, Terminal] = field(default_factory=dict)
    terminal_start_delay: float = 0.0
    """Seconds between starting a command and answering ``terminal/create`` (a slow editor)."""
    _next_terminal: int = 0

    @property
    def client_capabilities(self) -> ClientCapabilities:
        """What ``initialize`` declares."""
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs), terminal=self.terminal
        )

    def methods(self) -> list[str]:
        """The methods the agent called, in order."""
        return [method for method, _ in self.calls]

    # -- fs ----------------------------------------------------------------------------------

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **_: Any
    ) -> ReadTextFileResponse:
        self.calls.append(("fs/read_text_file", {"path": path, "line": line, "limit": limit}))
        if not os.path.isabs(path):
            raise RequestError.invalid_params({"details": f"path must be absolute: {path}"})
        if path in self.buffers:
            text = self.buffers[path]
        else:
            try:
                text = Path(path).read_text(encoding="utf-8")
            except FileNotFoundError:
                raise RequestError.resource_not_found(path) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max(0, (line or 1) - 1)
            text = "".join(lines[start : start + limit if limit is not None else None])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> WriteTextFileResponse:
        self.calls.append(("fs/write_text_file", {"path": path, "content": content}))
        if not os.path.isabs(path):
            raise RequestError.invalid_params({"details": f"path must be absolute: {path}"})
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        if path in self.buffers:
            self.buffers[path] = content
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
        params = {"command": command, "args": args, "cwd": cwd, "output_byte_limit": output_byte_limit}
        self.calls.append(("terminal/create", params))
        child_env = {**os.environ, **{v.name: v.value for v in env or []}}
        common: dict[str, Any] = {
            "cwd": cwd,
            "env": child_env,
            "stdin": asyncio.subprocess.DEVNULL,
            "stdout": asyncio.subprocess.PIPE,
            "stderr": asyncio.subprocess.STDOUT,
            "start_new_session": True,
        }
        if args:
            process = await asyncio.create_subprocess_exec(command, *args, **common)
        else:  # a command line, run by the shell as editors do
            process = await asyncio.create_subprocess_shell(command, **common)
        self._next_terminal += 1
        terminal = Terminal(f"term-{self._next_terminal}", process, output_byte_limit)
        terminal.reader = asyncio.get_running_loop().create_task(terminal.read())
        self.terminals[terminal.terminal_id] = terminal
        if self.terminal_start_delay:
            await asyncio.sleep(self.terminal_start_delay)
        return CreateTerminalResponse(terminal_id=terminal.terminal_id)

    def _terminal(self, terminal_id: str) -> Terminal:
        terminal = self.terminals.get(terminal_id)
        if terminal is None:
            raise RequestError.resource_not_found(terminal_id)
        return terminal

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> TerminalOutputResponse:
        self.calls.append(("terminal/output", {"terminal_id": terminal_id}))
        terminal = self._terminal(terminal_id)
        return TerminalOutputResponse(
            output=terminal.output.decode("utf-8", errors="replace"),
            truncated=terminal.truncated,
            exit_status=terminal.exit_status(),
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> WaitForTerminalExitResponse:
        self.calls.append(("terminal/wait_for_exit", {"terminal_id": terminal_id}))
        status = await self._terminal(terminal_id).wait()
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> KillTerminalResponse:
        self.calls.append(("terminal/kill", {"terminal_id": terminal_id}))
        self._terminal(terminal_id).kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> ReleaseTerminalResponse:
        self.calls.append(("terminal/release", {"terminal_id": terminal_id}))
        terminal = self.terminals.pop(terminal_id, None)
        if terminal is None:
            raise RequestError.resource_not_found(terminal_id)
        terminal.kill()
        return ReleaseTerminalResponse()

    async def aclose(self) -> None:
        """Kill whatever terminal is still running (end of a test)."""
        for terminal in self.terminals.values():
            terminal.kill()
        for terminal in list(self.terminals.values()):
            if terminal.reader is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(terminal.reader), 5)
