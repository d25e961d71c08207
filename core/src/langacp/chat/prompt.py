"""The chat's prompt at a terminal: line editing, history and Tab completion with the stdlib's readline.

Arrow keys move and recall earlier prompts (kept in ``$XDG_DATA_HOME/langacp/chat_history``,
``~/.local/share`` when unset), Ctrl-L clears the screen, Tab completes slash commands and a
mode id after ``/mode``. ``input()`` blocks, so it runs in a thread while the event loop keeps
serving the agent; the terminal's settings are restored on the way out, even when Ctrl-C ends
the chat in the middle of a line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["HISTORY_LENGTH", "TerminalPrompt", "history_path"]

HISTORY_LENGTH = 1000


def history_path() -> Path:
    """``$XDG_DATA_HOME/langacp/chat_history`` (``~/.local/share`` when unset or not absolute)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "langacp" / "chat_history"


def _readline() -> ModuleType | None:
    try:
        import readline
    except ImportError:  # Windows without pyreadline
        return None
    return readline


def _settle(future: asyncio.Future[str | None], line: str | None) -> None:
    if not future.done():
        future.set_result(line)


class TerminalPrompt:
    """Reads prompts with readline; ``words(line)`` gives the completions for the line typed so far."""

    def __init__(self, words: Callable[[str], Iterable[str]]) -> None:
        self.readline = _readline()
        self._words = words
        self._matches: list[str] = []
        self._saved_tty: Any = None
        self._pending: asyncio.Future[str | None] | None = None
        with contextlib.suppress(Exception):
            import termios

            self._saved_tty = termios.tcgetattr(sys.stdin.fileno())
        rl = self.readline
        if rl is None:
            return
        rl.set_completer(self._complete)
        rl.set_completer_delims(" \t\n")
        if "libedit" in (rl.__doc__ or ""):  # macOS's readline is libedit, with its own syntax
            rl.parse_and_bind("bind ^I rl_complete")
        else:
            rl.parse_and_bind("tab: complete")
        rl.set_history_length(HISTORY_LENGTH)
        with contextlib.suppress(OSError):
            rl.read_history_file(history_path())

    @property
    def available(self) -> bool:
        return self.readline is not None

    def _complete(self, text: str, state: int) -> str | None:
        if state == 0:
            assert self.readline is not None
            line = self.readline.get_line_buffer()[: self.readline.get_endidx()]
            self._matches = [w + " " for w in self._words(line) if w.startswith(text)]
        return self._matches[state] if state < len(self._matches) else None

    async def read(self, prompt: str) -> str | None:
        """The next line typed after ``prompt``; ``None`` at Ctrl-D."""
        if self._pending is None or self._pending.done():  # else a line is still being typed: wait for it
            loop = asyncio.get_running_loop()
            future: asyncio.Future[str | None] = loop.create_future()
            self._pending = future

            def run() -> None:
                try:
                    line: str | None = input(prompt)
                except (EOFError, OSError, ValueError):
                    line = None
                with contextlib.suppress(RuntimeError):  # the loop is closed: the chat is over
                    loop.call_soon_threadsafe(_settle, future, line)

            threading.Thread(target=run, name="langacp-chat-prompt", daemon=True).start()
        return await asyncio.shield(self._pending)

    def close(self) -> None:
        """Save the history and give the terminal back as it was."""
        if self.readline is not None:
            with contextlib.suppress(OSError):
                path = history_path()
                path.parent.mkdir(parents=True, exist_ok=True)
                self.readline.write_history_file(path)
        if self._saved_tty is not None:
            with contextlib.suppress(Exception):
                import termios

                termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._saved_tty)
