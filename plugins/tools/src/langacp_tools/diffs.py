"""Diffs of tools that edit files: proposed from the arguments, and actual (old text before, new after).

The old text is read right after the model answers by :class:`~langacp_tools.middleware.DiffCapture`
and again just before the tool runs (after the permission check, so what the user approved is
what is compared), or, for graphs langacp cannot insert middleware into, when the call's
arguments are first known. The new text is read right after the tool ran (:func:`read_after`,
by the ``langacp_tool_finished`` hook), or, in those graphs, when the result arrives. Only files
inside the session's directories are read, and only UTF-8 text up to :data:`MAX_BYTES`.

Reads never wait: a file is opened non-blocking and must be a regular file (a FIFO, device or
socket is skipped, never read), and the open descriptor must still lie inside the session's
directories (a link flipped after the check is not followed out). The middleware reads in a
worker thread, with a timeout.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langacp.api import SessionContext, ToolCallInfo, fd_path, is_inside
from langacp_tools.paths import absolute, first_path, inside_roots

__all__ = [
    "MAX_BYTES",
    "Before",
    "ToolsState",
    "capture_before",
    "proposed_text",
    "read_after",
    "read_text",
    "real_roots",
    "roots_of",
    "state",
    "target_path",
]

MAX_BYTES = 1024 * 1024
_NEW_TEXT_KEYS = ("content", "file_text", "contents", "new_content", "text", "data")
_OLD_KEYS = ("old_string", "old_str", "oldText", "old_text")
_NEW_KEYS = ("new_string", "new_str", "newText", "new_text")

Before = tuple[str, str | None]
"""(absolute path, its text before the tool ran, ``None`` for a file that did not exist)."""


@dataclass(slots=True)
class ToolsState:
    """This plugin's live state of a session (``session.scratch(ToolsState)``).

    The turn's tables are made on first use and dropped when the turn ends (:meth:`end_turn`), so
    an idle session holds none of them.
    """

    roots: list[str] | None = None
    """The session's directories as real paths, resolved once, off the event loop (:func:`real_roots`)."""
    pins: dict[str, str] | None = None
    """The configured kind pins, read once per session."""
    _before: dict[str, Before] | None = None
    _tried: set[str] | None = None
    _after: dict[str, str | None] | None = None
    _directories: set[str] | None = None

    @property
    def before(self) -> dict[str, Before]:
        """Each pending edit's file before it ran, by tool call id."""
        if self._before is None:
            self._before = {}
        return self._before

    @property
    def tried(self) -> set[str]:
        """Edits whose file a worker thread was asked to read (:func:`~langacp_tools.middleware.capture`):
        their start content uses what it found, if anything, and never reads the file on the event loop."""
        if self._tried is None:
            self._tried = set()
        return self._tried

    @property
    def after(self) -> dict[str, str | None]:
        """Each finished edit's file text after it ran, by tool call id, read off the event loop by the
        ``langacp_tool_finished`` hook (``None``: nothing to compare, such as a file gone or unreadable)."""
        if self._after is None:
            self._after = {}
        return self._after

    @property
    def has_before(self) -> bool:
        """Whether :attr:`before` holds anything (asked without making it)."""
        return bool(self._before)

    @property
    def has_after(self) -> bool:
        """Whether :attr:`after` holds anything (asked without making it)."""
        return bool(self._after)

    @property
    def directories(self) -> set[str]:
        """Absolute paths the turn's tool calls name that are directories (looked at off the event loop)."""
        if self._directories is None:
            self._directories = set()
        return self._directories

    def end_turn(self) -> None:
        """Forget the turn's tables (calls cut short by a cancel never got their result)."""
        self._before = self._tried = self._after = self._directories = None


def state(session: SessionContext) -> ToolsState:
    """This plugin's live state of ``session``."""
    return session.scratch(ToolsState)


def real_roots(session: SessionContext) -> list[str]:
    """The session's directories as real paths (``realpath``: it touches the file system)."""
    return [os.path.realpath(d) for d in (session.cwd, *session.additional_directories)]


def roots_of(session: SessionContext) -> list[str]:
    """The session's directories as real paths: resolved once per session (in a worker thread by the
    plugin's session hooks; here, blocking, only for a session they never saw)."""
    mine = state(session)
    if mine.roots is None:
        mine.roots = real_roots(session)
    return mine.roots


def target_path(call: ToolCallInfo, session: SessionContext) -> str | None:
    """The absolute file a call edits, if it names one inside the session's directories."""
    path = first_path(call.args)
    if path is None:
        return None
    full = absolute(path, session.cwd)
    return full if inside_roots(full, roots_of(session)) else None


class _Unreadable(Exception):
    """Not a UTF-8 text file of a size worth diffing."""


def read_text(path: str, roots: Sequence[str] | None = None) -> str | None:
    """The file's text, ``None`` if it does not exist; raises :class:`_Unreadable` otherwise.

    With ``roots`` (real paths), a file that turns out, once open, to lie outside them is unreadable.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _Unreadable(str(exc)) from exc
    with os.fdopen(fd, "rb") as f:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _Unreadable("not a regular file")
            real = fd_path(fd)
            if roots is not None and real is not None and not is_inside(real, roots):
                raise _Unreadable("outside the session's directories")
            data = f.read(MAX_BYTES + 1)
        except OSError as exc:
            raise _Unreadable(str(exc)) from exc
    if len(data) > MAX_BYTES:
        raise _Unreadable("too large")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Unreadable("not UTF-8 text") from exc


def capture_before(call: ToolCallInfo, session: SessionContext, *, replace: bool = True) -> Before | None:
    """Read and remember the old text of the file ``call`` edits (``replace=False``: keep an earlier
    capture, and read nothing for a call a worker thread was asked to read for, even if it found nothing)."""
    mine = state(session)
    before = mine.before
    if not replace and (call.tool_call_id in before or call.tool_call_id in mine.tried):
        return before.get(call.tool_call_id)
    path = target_path(call, session)
    if path is None:
        return None
    try:
        captured: Before = (path, read_text(path, roots_of(session)))
    except _Unreadable:
        before.pop(call.tool_call_id, None)
        return None
    before[call.tool_call_id] = captured
    return captured


def read_after(call: ToolCallInfo, session: SessionContext) -> str | None:
    """The text of the file edit ``call`` changed, as it is now (``None``: gone, unreadable or never
    captured). It touches the file system: run in a worker thread."""
    before = state(session).before.get(call.tool_call_id)
    if before is None:
        return None
    try:
        return read_text(before[0], roots_of(session))
    except _Unreadable:
        return None


def _edited(current: str, args: Mapping[str, Any]) -> str | None:
    old = next((args[k] for k in _OLD_KEYS if isinstance(args.get(k), str)), None)
    new = next((args[k] for k in _NEW_KEYS if isinstance(args.get(k), str)), None)
    if old is not None and new is not None:
        if not old or old not in current:
            return None
        return current.replace(old, new) if args.get("replace_all") is True else current.replace(old, new, 1)
    edits = args.get("edits")
    if isinstance(edits, list) and edits:
        text = current
        for edit in edits:
            result = _edited(text, edit) if isinstance(edit, Mapping) else None
            if result is None:
                return None
            text = result
        return text
    return None


def proposed_text(old: str | None, args: Mapping[str, Any]) -> str | None:
    """The file's text after the call, computed from its arguments; ``None`` if they do not say."""
    edited = _edited(old, args) if old is not None else None
    if edited is not None:
        return edited
    if any(k in args for k in _OLD_KEYS) or "edits" in args:
        return None  # an edit whose old text is not in the file: it will fail
    return next((args[k] for k in _NEW_TEXT_KEYS if isinstance(args.get(k), str)), None)
