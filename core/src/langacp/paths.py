"""Confining paths to a session's directories (its cwd and additional directories).

A path is resolved against the session's cwd (``~`` and ``~/…`` are the home directory), then
through ``os.path.realpath``: ``..``, an absolute path elsewhere and a symlink pointing out
all end up outside every root and are refused with :class:`PathOutsideError`. Tools that
touch files (the default agent's, the client tools) call :meth:`SessionPaths.resolve` before
asking permission, reading, writing or asking the editor, and send the editor the real path.

Resolving is not enough on its own: a link can be flipped between the check and the use.
So local reads and writes go through :meth:`SessionPaths.open_file` and
:meth:`SessionPaths.write_bytes`, which check the file they really opened (the path of the
open descriptor) and write through a temporary file in a directory they opened and checked,
replaced with ``os.replace`` relative to that directory: no link is followed out of the roots,
whatever happens meanwhile. Only regular files are opened (a FIFO, device or socket is
refused, never waited on: ``O_NONBLOCK``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["PathError", "PathOutsideError", "SessionPaths", "fd_path", "is_inside"]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def fd_path(fd: int) -> str | None:
    """The real path of the file open as ``fd`` (``None`` where the system cannot tell)."""
    if sys.platform.startswith("linux"):
        try:
            found = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None
        return found if found.startswith("/") else None
    if sys.platform == "darwin":  # pragma: no cover - not run in CI
        import fcntl

        getpath = getattr(fcntl, "F_GETPATH", None)
        if getpath is not None:
            try:
                raw = fcntl.fcntl(fd, getpath, bytes(1024))
            except OSError:
                return None
            return os.fsdecode(raw.split(b"\0", 1)[0])
    return None  # pragma: no cover


class PathError(ValueError):
    """A path argument is not a usable path (empty, not a string, holds NUL)."""


class PathOutsideError(PathError):
    """A path resolves outside the session's directories."""


def is_inside(real: str, roots: Sequence[str]) -> bool:
    """Whether the real path ``real`` is one of ``roots`` (real paths) or under one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


class SessionPaths:
    """The directories a session may touch: ``cwd`` first, then ``additional_directories``."""

    def __init__(
        self, cwd: str, additional_directories: Sequence[str] = (), *, roots: Sequence[str] | None = None
    ) -> None:
        """``roots``: the directories' real paths when already resolved (``await session.roots()``);
        without it they are resolved here (``realpath``: it touches the file system)."""
        self.cwd = Path(cwd)
        self.roots = list(roots) if roots is not None else [os.path.realpath(d) for d in (cwd, *additional_directories)]
        self.given = [os.path.abspath(d) for d in (cwd, *additional_directories)]
        """The directories as the client named them (an editor keys its buffers by these)."""

    def resolve(self, path: str, *, action: str = "used") -> Path:
        """``path`` (relative to the cwd, or absolute) as a real path inside a root.

        Raises :class:`PathError` for a malformed path and :class:`PathOutsideError` for one
        that leaves the session's directories; ``action`` words the message (``"read"``).
        """
        if not isinstance(path, str) or not path.strip():
            raise PathError("path must be a non-empty string")
        if "\x00" in path:
            raise PathError("path must not contain NUL characters")
        raw = Path(self.expand(path))
        try:
            real = os.path.realpath(raw if raw.is_absolute() else self.cwd / raw)
        except OSError as exc:  # a link changed while it was being followed, a loop, …
            raise PathError(f"{path} cannot be resolved ({exc.strerror}); it is not {action}") from None
        if not self.inside(real):
            raise self.outside(path, action)
        return Path(real)

    @staticmethod
    def expand(path: str) -> str:
        """``~`` and ``~/…`` as the home directory; ``~user`` is refused (it names another user's home)."""
        if path == "~" or path.startswith("~/"):
            return os.path.expanduser(path)
        if path.startswith("~"):
            raise PathError(f"{path}: a path may not name another user's home directory (~user)")
        return path

    def outside(self, path: str, action: str) -> PathOutsideError:
        return PathOutsideError(
            f"{path} is outside the session's directories ({', '.join(self.roots)}); "
            f"only files under them can be {action}"
        )

    def inside(self, real: str) -> bool:
        """Whether the real path ``real`` lies in one of the session's directories."""
        return is_inside(real, self.roots)

    def client_path(self, real: str | Path) -> str:
        """The checked real path as the client knows it: under the root as the client named it.

        Only the root itself is spelt the client's way (a project opened through a link); every
        link inside the roots stays resolved, so the editor is never sent a path through one.
        """
        text = str(real)
        for given, root in sorted(zip(self.given, self.roots, strict=True), key=lambda p: -len(p[1])):
            if text == root:
                return given
            if text.startswith(root.rstrip(os.sep) + os.sep):
                return os.path.join(given, text[len(root.rstrip(os.sep)) + 1 :])
        return text

    # -- race-free use ------------------------------------------------------------------------

    def _check_open(self, fd: int, shown: str, action: str) -> None:
        """The open ``fd`` must be inside a root (a link may have been flipped since resolving)."""
        real = fd_path(fd)
        if real is None:  # the system cannot tell (not Linux or macOS): the resolved path was checked
            return
        if not self.inside(real):
            raise self.outside(shown, action)

    def open_file(self, real: str | Path, *, shown: str | None = None, action: str = "read") -> int:
        """Open the regular file ``real`` for reading; returns the descriptor (the caller closes it).

        Refuses (:class:`PathError`) a directory, a FIFO, a device or a socket without waiting
        on it, and a file that turns out to lie outside the session's directories.
        """
        shown = shown or str(real)
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | _NOCTTY | _CLOEXEC)
        except FileNotFoundError:
            raise PathError(f"{shown} does not exist") from None
        except IsADirectoryError:
            raise PathError(f"{shown} is a directory, not a file") from None
        except OSError as exc:
            raise PathError(f"cannot open {shown}: {exc.strerror}") from None
        try:
            self._check_open(fd, shown, action)
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise PathError(f"{shown} is a directory, not a file")
            if not stat.S_ISREG(info.st_mode):
                raise PathError(f"{shown} is not a regular file (a FIFO, device or socket); it is not {action}")
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read_bytes(self, real: str | Path, limit: int, *, shown: str | None = None) -> bytes:
        """Up to ``limit`` bytes of the regular file ``real`` (one more tells the caller it is longer)."""
        fd = self.open_file(real, shown=shown)
        with os.fdopen(fd, "rb") as f:
            return f.read(limit + 1)

    def open_dir(self, real: str | Path, *, shown: str | None = None, action: str = "used") -> int:
        """Open the directory ``real`` (checked to be inside a root once open); the caller closes it."""
        shown = shown or str(real)
        try:
            fd = os.open(real, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        except FileNotFoundError:
            raise PathError(f"{shown} does not exist") from None
        except NotADirectoryError:
            raise PathError(f"{shown} is not a directory") from None
        except OSError as exc:
            raise PathError(f"cannot open {shown}: {exc.strerror}") from None
        try:
            self._check_open(fd, shown, action)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _open_parent(self, directory: str, shown: str) -> int:
        """Open ``directory``, creating what is missing of it one component at a time, never through a link."""
        base, missing = directory, list[str]()
        while not os.path.isdir(base):
            base, name = os.path.split(base)
            if not name:
                break
            missing.insert(0, name)
        fd = self.open_dir(base, shown=shown, action="written")
        try:
            for name in missing:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                try:
                    inner = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
                except OSError as exc:
                    raise PathError(f"cannot create the directories of {shown}: {exc.strerror}") from None
                os.close(fd)
                fd = inner
        except BaseException:
            os.close(fd)
            raise
        return fd

    def write_bytes(self, real: str | Path, data: bytes, *, shown: str | None = None) -> None:
        """Write ``data`` as the whole file ``real`` (creating it and its directories), race-free.

        The data goes to a temporary file in the (checked) directory, then replaces the name:
        a link put in the file's place meanwhile is replaced, never followed. A directory, a
        FIFO, a device or a socket of that name is refused. An existing file keeps its mode.
        """
        shown = shown or str(real)
        directory, name = os.path.split(str(real))
        dfd = self._open_parent(directory, shown)
        temp = f".{name[:100]}.{secrets.token_hex(4)}.langacp-tmp"
        try:
            mode, existed = 0o666, False
            try:
                info = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                pass
            else:
                if stat.S_ISDIR(info.st_mode):
                    raise PathError(f"{shown} is a directory")
                if stat.S_ISREG(info.st_mode):
                    mode, existed = stat.S_IMODE(info.st_mode), True
                elif not stat.S_ISLNK(info.st_mode):  # a link appeared since resolving: replaced below
                    raise PathError(f"{shown} is not a regular file (a FIFO, device or socket); it is not written")
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode, dir_fd=dfd)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                if existed:  # the umask applied to the new file; the old file's mode is kept
                    os.chmod(temp, mode, dir_fd=dfd)
                os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=dfd)
                raise PathError(f"cannot write {shown}: {exc.strerror}") from None
        finally:
            os.close(dfd)

    def display(self, real: Path | str) -> str:
        """A path as the user thinks of it: relative to the cwd when under it."""
        root = self.roots[0].rstrip(os.sep)
        text = str(real)
        if text == self.roots[0]:
            return "."
        if text.startswith(root + os.sep):
            return text[len(root) + 1 :]
        return text
