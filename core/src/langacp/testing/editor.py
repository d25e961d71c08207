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

from langacp.client.local import Terminal, Terminals, select_lines
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
    terminals: Terminals = field(default_factory=Terminals)
    """The commands it runs, by terminal id (:class:`langacp.client.local.Terminals`, as ``LocalHandler``)."""
    terminal_start_delay: float = 0.0
    """Seconds between starting a command and answering ``terminal/create`` (a slow editor)."""

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
        return ReadTextFileResponse(content=select_lines(text, line, limit))

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

    # -- terminals: run for real, as LocalHandler does, without confining the working directory --

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
        terminal = await self.terminals.create(command, args, env, cwd, output_byte_limit)
        if self.terminal_start_delay:
            await asyncio.sleep(self.terminal_start_delay)
        return CreateTerminalResponse(terminal_id=terminal.terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> TerminalOutputResponse:
        self.calls.append(("terminal/output", {"terminal_id": terminal_id}))
        return self.terminals.output(terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> WaitForTerminalExitResponse:
        self.calls.append(("terminal/wait_for_exit", {"terminal_id": terminal_id}))
        return await self.terminals.wait_for_exit(terminal_id)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> KillTerminalResponse:
        self.calls.append(("terminal/kill", {"terminal_id": terminal_id}))
        return self.terminals.kill(terminal_id)

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> ReleaseTerminalResponse:
        self.calls.append(("terminal/release", {"terminal_id": terminal_id}))
        return self.terminals.release(terminal_id)

    async def aclose(self) -> None:
        """Kill whatever terminal is still running (end of a test)."""
        await self.terminals.aclose()
