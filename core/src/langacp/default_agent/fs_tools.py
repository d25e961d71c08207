"""Read-only file tools confined to a session's directories: ``list_files``, ``read_file``, ``search_files``.

Every path goes through :class:`langacp.paths.SessionPaths`: a path that ends up outside the
cwd and the session's additional directories (``..``, an absolute path elsewhere, a symlink
pointing out) is a tool error, and nothing is read. The check runs before any permission is
asked (``langacp_check``), and files are opened race-free (the open descriptor is checked: a
link flipped meanwhile is not followed out; a FIFO, device or socket is refused unopened).
The tools are sync: LangChain runs them in a worker thread, off the event loop. ``search_files``
walks and reads here, but matches in a child process (:mod:`langacp.default_agent.search_child`):
Python's ``re`` holds the GIL while matching, so a pattern that backtracks without end would freeze
every session of the process. The child is killed after :func:`search_timeout` seconds.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from langacp.paths import PathError, SessionPaths

__all__ = ["FileTools", "make_fs_tools"]

MAX_ENTRIES = 500
MAX_LINE_CHARS = 2000
MAX_READ_CHARS = 200_000
MAX_MATCHES = 100
MAX_SEARCH_FILES = 20_000
MAX_SEARCH_FILE_BYTES = 2_000_000
SEARCH_TIMEOUT = 20.0
"""Seconds a search may take (walk and match) unless ``LANGACP_SEARCH_TIMEOUT`` says otherwise."""
SEARCH_CHILD = str(Path(__file__).with_name("search_child.py"))
_LENGTH = struct.Struct(">I")
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache"}
    | {".pytest_cache", ".ruff_cache"}
)


class FileTools:
    """The file tools of one session: ``roots`` are the directories they may read."""

    def __init__(self, cwd: str, additional_directories: Sequence[str] = ()) -> None:
        self._dirs = (cwd, tuple(additional_directories))

    @functools.cached_property
    def paths(self) -> SessionPaths:
        """The session's directories, resolved when a tool (or its check) first runs: in a worker
        thread, never on the event loop where the factory builds the tools (``realpath`` of a
        directory on a hung file system would hold up every session)."""
        cwd, additional = self._dirs
        return SessionPaths(cwd, additional)

    # -- confinement (langacp.paths) -------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """``path`` (relative to the cwd, or absolute) as a real path inside a root, or a tool error."""
        try:
            return self.paths.resolve(path, action="read")
        except PathError as exc:
            raise ToolException(str(exc)) from exc

    def display(self, real: Path) -> str:
        """A path as the user thinks of it: relative to the cwd when under it."""
        return self.paths.display(real)

    def _inside(self, real: str) -> bool:
        return self.paths.inside(real)

    # -- tools ---------------------------------------------------------------------------------

    def list_files(self, path: str = ".") -> str:
        """List the entries of a directory (directories end with '/')."""
        directory = self.resolve(path)
        if not directory.is_dir():
            raise ToolException(f"{path} is not a directory")
        try:
            fd = self.paths.open_dir(directory, shown=path, action="listed")
        except PathError as exc:
            raise ToolException(str(exc)) from exc
        try:
            with os.scandir(fd) as found:
                names = [e.name + ("/" if _is_dir(e) else "") for e in sorted(found, key=lambda e: e.name)]
        except OSError as exc:
            raise ToolException(f"cannot list {path}: {exc.strerror}") from exc
        finally:
            os.close(fd)
        if not names:
            return f"{self.display(directory)}: (empty directory)"
        shown = names[:MAX_ENTRIES]
        more = f"\n… and {len(names) - MAX_ENTRIES} more" if len(names) > MAX_ENTRIES else ""
        return "\n".join(shown) + more

    def read_file(self, path: str, offset: int = 0, limit: int = 2000) -> str:
        """Read a text file: ``limit`` lines starting after ``offset`` lines."""
        file = self.resolve(path)
        if file.is_dir():
            raise ToolException(f"{path} is a directory: use list_files")
        offset, limit = max(0, int(offset)), max(1, int(limit))
        try:
            fd = self.paths.open_file(file, shown=path)
        except PathError as exc:
            raise ToolException(str(exc)) from exc
        try:
            if b"\x00" in os.pread(fd, 8192, 0):
                os.close(fd)
                raise ToolException(f"{path} is a binary file")
            with os.fdopen(fd, encoding="utf-8", errors="replace") as f:
                lines: list[str] = []
                size = 0
                total = 0
                for total, line in enumerate(f, start=1):
                    if total <= offset or len(lines) >= limit or size >= MAX_READ_CHARS:
                        continue
                    line = line.rstrip("\n")
                    if len(line) > MAX_LINE_CHARS:
                        line = line[:MAX_LINE_CHARS] + "…"
                    lines.append(line)
                    size += len(line) + 1
        except OSError as exc:
            raise ToolException(f"cannot read {path}: {exc.strerror}") from exc
        text = "\n".join(lines)
        rest = total - offset - len(lines)
        if rest > 0:
            text += f"\n… ({rest} more lines; read again with offset={offset + len(lines)})"
        elif not lines:
            text = f"{self.display(file)}: (no lines after line {offset}; the file has {total})"
        return text

    def search_files(self, pattern: str, path: str = ".") -> str:
        """Search text files for a regular expression (or plain text); results as ``path:line: text``."""
        if not pattern:
            raise ToolException("pattern must not be empty")
        start = self.resolve(path)
        timeout = search_timeout()
        late = threading.Event()

        def stop(child: subprocess.Popen[bytes]) -> None:
            late.set()
            child.kill()

        command = [sys.executable, "-I", "-S", SEARCH_CHILD, str(timeout)]
        with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as child:
            stdin, stdout = child.stdin, child.stdout
            assert stdin is not None and stdout is not None
            timer = threading.Timer(timeout, stop, args=(child,))
            timer.daemon = True
            timer.start()
            try:
                self._feed(stdin, pattern, start, late)
                output = stdout.read()
                child.wait()
            finally:
                timer.cancel()
                if child.poll() is None:
                    child.kill()
                with contextlib.suppress(OSError):
                    stdin.close()  # unsent input to a child that is gone: dropped
        if child.returncode != 0:
            if late.is_set():
                raise ToolException(f"the search took longer than {timeout:g} s; narrow the pattern or the path")
            raise ToolException(f"the search failed (exit status {child.returncode})")
        result = json.loads(output)
        return _search_result(pattern, result["matches"], result["files"], truncated=result["truncated"])

    def _feed(self, stream: Any, pattern: str, start: Path, late: threading.Event) -> None:
        """Send the pattern, the cap and each confined file to the search child, until it stops reading."""
        try:
            _write_frame(stream, pattern.encode("utf-8", errors="surrogatepass"))
            _write_frame(stream, str(MAX_MATCHES).encode())
            for file in self._walk(start):
                if late.is_set():
                    return
                data = self._searchable(file)
                if data is not None:
                    _write_frame(stream, self.display(file).encode("utf-8", errors="surrogateescape"))
                    _write_frame(stream, data)
            stream.close()
        except (BrokenPipeError, ConnectionResetError):
            return  # the child stopped at the result cap, or was killed on the deadline

    def _walk(self, start: Path) -> Iterator[Path]:
        if start.is_file():
            yield start
            return
        seen = 0
        for folder, dirs, files in os.walk(start):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                seen += 1
                if seen > MAX_SEARCH_FILES:
                    return
                file = Path(folder, name)
                try:
                    if file.is_symlink() and not self._inside(os.path.realpath(file)):
                        continue  # a symlink pointing out of the session's directories is never read
                except OSError:
                    continue
                yield file

    def _searchable(self, file: Path) -> bytes | None:
        """The bytes of a text file to search, or None (not regular, outside, too big, binary)."""
        try:
            fd = self.paths.open_file(file)
        except PathError:
            return None  # not a regular file, or (a link flipped) outside the session: skipped
        with os.fdopen(fd, "rb") as f:
            try:
                if os.fstat(fd).st_size > MAX_SEARCH_FILE_BYTES:
                    return None
                data = f.read(MAX_SEARCH_FILE_BYTES + 1)
            except OSError:
                return None
        if len(data) > MAX_SEARCH_FILE_BYTES or b"\x00" in data[:8192]:
            return None
        return data

    def _check(self, key: str, default: str | None) -> Any:
        def check(args: dict[str, Any]) -> str | None:
            value = args.get(key, default)
            if not isinstance(value, str):
                return None  # the tool's own validation answers
            try:
                self.paths.resolve(value, action="read")
            except PathError as exc:
                return str(exc)
            return None

        return check

    def tools(self) -> list[BaseTool]:
        """The LangChain tools (errors become failed tool results the model can read)."""
        return [
            _tool(
                func,
                description,
                metadata={"langacp_check": self._check("path", "." if func.__name__ != "read_file" else None)},
            )
            for func, description in (
                (
                    self.list_files,
                    "List the files and directories in a directory of the user's project "
                    "(default: the project root). Directories end with '/'.",
                ),
                (
                    self.read_file,
                    "Read a text file of the user's project. `offset` is the number of lines to skip, "
                    "`limit` the number of lines to return.",
                ),
                (
                    self.search_files,
                    "Search the text files under a directory of the user's project for a regular "
                    "expression (or plain text). Returns matches as `path:line: text`.",
                ),
            )
        ]


_SCHEMAS: dict[str, Any] = {}
"""Argument schemas by tool name, derived once per process: the same for every session (deriving one
builds a pydantic model), which also lets sessions share one compiled graph (``langacp.shared_graphs``)."""


def _tool(func: Any, description: str, metadata: dict[str, Any]) -> StructuredTool:
    made = StructuredTool.from_function(
        func,
        name=func.__name__,
        description=description,
        handle_tool_error=True,
        metadata=metadata,
        args_schema=_SCHEMAS.get(func.__name__),
    )
    _SCHEMAS.setdefault(func.__name__, made.args_schema)
    return made


def make_fs_tools(cwd: str, additional_directories: Sequence[str] = ()) -> list[BaseTool]:
    """``list_files``, ``read_file`` and ``search_files`` confined to ``cwd`` and ``additional_directories``."""
    return FileTools(cwd, additional_directories).tools()


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def search_timeout() -> float:
    """:data:`SEARCH_TIMEOUT`, or ``LANGACP_SEARCH_TIMEOUT`` (seconds) when set to a positive number."""
    try:
        value = float(os.environ.get("LANGACP_SEARCH_TIMEOUT", ""))
    except ValueError:
        return SEARCH_TIMEOUT
    return value if value > 0 else SEARCH_TIMEOUT


def _write_frame(stream: Any, data: bytes) -> None:
    stream.write(_LENGTH.pack(len(data)))
    stream.write(data)


def _search_result(pattern: str, matches: list[str], files: int, *, truncated: bool) -> str:
    if not matches:
        return f"No matches for {pattern!r}."
    found = f"{len(matches)}{'+' if truncated else ''} {'match' if len(matches) == 1 and not truncated else 'matches'}"
    head = f"{found} for {pattern!r} in {files} {'file' if files == 1 else 'files'}:"
    tail = "\n… (more matches not shown; narrow the search)" if truncated else ""
    return "\n".join([head, *matches]) + tail
