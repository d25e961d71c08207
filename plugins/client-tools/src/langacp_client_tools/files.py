"""Reading, writing and editing files: through the editor when it offers ``fs``, else on disk.

Errors a model can act on (missing file, text not found, path outside the session) are
``ToolException``: the call fails with that message and the turn goes on.

Local reads and writes run in a worker thread with a timeout (a hung file system stops the
call, not the agent) and go through :class:`langacp.paths.SessionPaths`' race-free
``open_file`` / ``write_bytes``: a link flipped after the check is never followed out of the
session's directories, and a FIFO, device or socket is refused, never waited on.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.tools import ToolException

from langacp.api import PathError, SessionContext, SessionPaths, run_off_loop
from langacp_client_tools.access import ClientAccess, Target, locate
from langacp_client_tools.settings import Settings

__all__ = ["FileOps", "off_loop", "replace_exact"]

BINARY_SNIFF = 8192
MAX_DIFF_CHARS = 2 * 1024 * 1024
MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest local file read whole (to edit it or diff it)."""
IO_TIMEOUT = 30.0
"""Seconds a local read or write may take."""

T = TypeVar("T")

Artifact = dict[str, Any] | None
"""A tool's artifact: ``{"diff": {"path", "old_text", "new_text"}}`` for langacp-tools to show."""


def replace_exact(
    text: str, old: str, new: str, *, replace_all: bool = False, path: str = "the file"
) -> tuple[str, int]:
    """``text`` with ``old`` replaced by ``new`` and the number of replacements.

    ``old`` must occur exactly once, unless ``replace_all``; otherwise a tool error says why.
    """
    if not old:
        raise ToolException("old_string must not be empty: to write a whole file, use write_file")
    if old == new:
        raise ToolException("old_string and new_string are the same: there is nothing to change")
    count = text.count(old)
    if count == 0:
        raise ToolException(
            f"old_string was not found in {path}. Read the file and copy the text exactly, "
            "including indentation and line breaks."
        )
    if count > 1 and not replace_all:
        raise ToolException(
            f"old_string occurs {count} times in {path}. Include more of the surrounding lines to make it "
            "unique, or set replace_all to replace every occurrence."
        )
    return (text.replace(old, new) if replace_all else text.replace(old, new, 1)), (count if replace_all else 1)


class FileOps:
    """One session's file operations; ``access`` says which go through the editor."""

    def __init__(
        self, session: SessionContext, access: ClientAccess, settings: Settings, paths: SessionPaths | None = None
    ) -> None:
        self.session = session
        self.access = access
        self.settings = settings
        self.paths = paths or SessionPaths(session.cwd, session.additional_directories)

    async def locate(self, path: str, action: str) -> tuple[Target, int | None]:
        """The confined path and the mode of what is there (``None``: nothing), found in a worker thread."""
        return await off_loop(locate, self.paths, path, action)

    # -- reading -----------------------------------------------------------------------------

    async def read(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        """``limit`` lines of a text file starting at ``line`` (1-based), with a note when more follow."""
        where, mode = await self.locate(path, "read")
        start = max(1, int(line)) if line is not None else 1
        count = max(1, int(limit)) if limit is not None else self.settings.read_lines
        if mode is not None and stat.S_ISDIR(mode):
            raise ToolException(f"{path} is a directory, not a file")
        if self.access.read:
            # One line more than asked: tells whether the file goes on.
            lines = (await self._client_read(where, start, count + 1)).splitlines()
            more: int | None = None if len(lines) <= count else -1
            lines = lines[:count]
        else:
            lines, total = await off_loop(self._local_lines, where, path, start, count)
            rest = total - (start - 1) - len(lines)
            more = rest if rest > 0 else None
        return self._format(where, lines, start, more)

    def _format(self, where: Target, lines: list[str], start: int, more: int | None) -> str:
        shown: list[str] = []
        size = 0
        for text in lines:
            if size >= self.settings.max_read_chars:
                more = -1 if more is None else more + len(lines) - len(shown)
                break
            if len(text) > self.settings.max_line_chars:
                text = text[: self.settings.max_line_chars] + "…"
            shown.append(text)
            size += len(text) + 1
        if not shown:
            return f"{where.shown}: (no lines from line {start}; the file is shorter)"
        out = "\n".join(shown)
        if more is not None:
            amount = f"{more} more line{'s' if more != 1 else ''}" if more > 0 else "more lines follow"
            out += f"\n… ({amount}; read again with line={start + len(shown)})"
        return out

    async def _client_read(self, where: Target, line: int | None, limit: int | None) -> str:
        from acp import RequestError

        try:
            response = await self.session.client.read_text_file(
                session_id=self.session.session_id, path=where.sent, line=line, limit=limit
            )
        except RequestError as exc:
            raise ToolException(f"the editor could not read {where.shown}: {_client_error(exc)}") from exc
        return str(response.content)

    def _local_lines(self, where: Target, path: str, start: int, count: int) -> tuple[list[str], int]:
        fd = self._open_text(where, path)
        lines: list[str] = []
        total = 0
        try:
            with os.fdopen(fd, encoding="utf-8", errors="replace", newline="") as f:
                for total, text in enumerate(f, start=1):
                    if total >= start and len(lines) < count:
                        lines.append(text.rstrip("\r\n"))
        except OSError as exc:
            raise ToolException(f"cannot read {path}: {exc.strerror}") from exc
        return lines, total

    def _open_text(self, where: Target, path: str) -> int:
        """The file open for reading (checked once open: a regular file inside the session), not binary."""
        try:
            fd = self.paths.open_file(where.real, shown=path)
        except PathError as exc:
            raise ToolException(str(exc)) from exc
        try:
            if b"\x00" in os.pread(fd, BINARY_SNIFF, 0):
                raise ToolException(f"{path} is a binary file")
        except OSError as exc:
            os.close(fd)
            raise ToolException(f"cannot read {path}: {exc.strerror}") from exc
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _local_text(self, where: Target, path: str) -> str:
        fd = self._open_text(where, path)
        try:
            with os.fdopen(fd, "rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise ToolException(f"cannot read {path}: {exc.strerror}") from exc
        if len(data) > MAX_FILE_BYTES:
            raise ToolException(f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolException(f"{path} is not UTF-8 text") from exc

    async def read_all(self, where: Target, path: str) -> str:
        """The whole text of an existing file (the editor's buffer when it offers ``fs.readTextFile``)."""
        if self.access.read:
            return await self._client_read(where, None, None)
        return await off_loop(self._local_text, where, path)

    # -- writing -----------------------------------------------------------------------------

    async def write(self, path: str, content: str) -> tuple[str, Artifact]:
        """Write a whole file (created with its parent directories if needed); the result and its diff."""
        where, mode = await self.locate(path, "written")
        existed = mode is not None
        if mode is not None and stat.S_ISDIR(mode):
            raise ToolException(f"{path} is a directory")
        old: str | None = None
        known = True  # the old text, for the diff: the editor's buffer when it reads for us
        if existed:
            try:
                old = await self.read_all(where, path)
            except ToolException:  # binary, not UTF-8, …: written all the same, without a diff
                known = False
        await self._write(where, path, content)
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        text = f"{'Wrote' if existed else 'Created'} {where.shown} ({lines} lines)."
        return text, _diff(where, old, content) if known else None

    async def edit(
        self, path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> tuple[str, Artifact]:
        """Replace the exact text ``old_string`` (once, or everywhere with ``replace_all``); the result and its diff."""
        where, mode = await self.locate(path, "edited")
        if mode is not None and stat.S_ISDIR(mode):
            raise ToolException(f"{path} is a directory")
        current = await self.read_all(where, path)
        updated, count = replace_exact(current, old_string, new_string, replace_all=replace_all, path=where.shown)
        await self._write(where, path, updated)
        return f"Edited {where.shown}: {count} replacement{'s' if count != 1 else ''}.", _diff(where, current, updated)

    async def _write(self, where: Target, path: str, content: str) -> None:
        if self.access.write:
            from acp import RequestError

            try:
                await self.session.client.write_text_file(
                    session_id=self.session.session_id, path=where.sent, content=content
                )
            except RequestError as exc:
                raise ToolException(f"the editor could not write {where.shown}: {_client_error(exc)}") from exc
            return
        await off_loop(self._local_write, where, path, content)

    def _local_write(self, where: Target, path: str, content: str) -> None:
        try:
            self.paths.write_bytes(where.real, content.encode("utf-8"), shown=path)
        except PathError as exc:
            raise ToolException(str(exc)) from exc


async def off_loop(func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` in a worker thread, given up after :data:`IO_TIMEOUT` (the thread is left to finish)."""
    try:
        return await run_off_loop(func, IO_TIMEOUT, *args)
    except TimeoutError:
        raise ToolException(f"the file system did not answer within {IO_TIMEOUT:g} s") from None


def _diff(where: Target, old: str | None, new: str) -> Artifact:
    """The diff a client is shown (langacp-tools renders it), unless the texts are too large to send."""
    if len(new) + len(old or "") > MAX_DIFF_CHARS:
        return None
    return {"diff": {"path": where.sent, "old_text": old, "new_text": new}}


def _client_error(exc: Exception) -> str:
    if getattr(exc, "code", None) == -32002:  # resource not found
        return "it does not exist"
    data = getattr(exc, "data", None)
    details = data.get("details") if isinstance(data, dict) else None
    return str(details or exc)
