"""Reading what the user types for ``langacp chat``: stdin's lines for asyncio, and answers to questions.

At a terminal, :class:`~langacp.chat.prompt.TerminalPrompt` reads the prompts and the reader here
only the answers to permission questions; with piped input it reads everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp.schema import PermissionOption

__all__ = ["LineReader", "choose"]


class LineReader:
    """Lines from stdin for asyncio, without a blocking thread when stdin can be polled.

    ``attached=False``: stdin is read only between :meth:`attach` and :meth:`detach` (at a
    terminal, readline reads the prompts and this reader only the answers to questions).
    """

    def __init__(self, *, attached: bool = True) -> None:
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._buffer = b""
        self._fd = sys.stdin.fileno()
        self._polled = False
        self._attached = False
        if attached:
            self.attach()

    def attach(self) -> None:
        if self._attached:
            return
        self._attached = True
        loop = asyncio.get_running_loop()
        try:
            loop.add_reader(self._fd, self._readable)
            self._polled = True
        except (OSError, ValueError, NotImplementedError):  # a regular file cannot be polled
            self._polled = False
            threading.Thread(target=self._read_blocking, args=(loop,), daemon=True).start()

    def detach(self) -> None:
        """Stop reading stdin (lines already read stay queued)."""
        if self._polled and self._attached:
            self._attached = False
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._fd)

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self._fd)
            self._polled = False
            if self._buffer:
                self.lines.put_nowait(self._buffer.decode(errors="replace"))
            self.lines.put_nowait(None)
            return
        self._buffer += data
        *complete, self._buffer = self._buffer.split(b"\n")
        for line in complete:
            self.lines.put_nowait(line.decode(errors="replace").rstrip("\r"))

    def _read_blocking(self, loop: asyncio.AbstractEventLoop) -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(self.lines.put_nowait, line.rstrip("\r\n"))
        loop.call_soon_threadsafe(self.lines.put_nowait, None)

    async def readline(self) -> str | None:
        """The next line, or ``None`` at end of input (which then stays the answer)."""
        line = await self.lines.get()
        if line is None:
            self.lines.put_nowait(None)
        return line

    def close(self) -> None:
        self.detach()


def choose(answer: str, options: list[PermissionOption]) -> PermissionOption | None:
    """The option ``answer`` names: its number (from 1), the start of its name or its id (any case)."""
    if answer.isdigit() and 1 <= int(answer) <= len(options):
        return options[int(answer) - 1]
    lowered = answer.lower()
    if lowered:
        for option in options:
            if option.name.lower().startswith(lowered) or option.option_id.lower() == lowered:
                return option
    return None
