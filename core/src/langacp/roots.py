"""A session's directories as real paths, resolved once, off the event loop (``await session.roots()``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from langacp.off_loop import run_off_loop

__all__ = ["SessionRoots", "real_paths"]


def real_paths(directories: tuple[str, ...]) -> tuple[str, ...]:
    """Each of ``directories`` as a real path (``os.path.realpath``: it touches the file system)."""
    return tuple(os.path.realpath(d) for d in directories)


@dataclass
class SessionRoots:
    """The real paths of one session's directories, kept in ``session.scratch(SessionRoots)``.

    The core resolves them when it opens the session, in the worker-thread call that looks at the
    configuration files (:func:`langacp.trust.open_layers`), and hands them over with :meth:`keep`.
    """

    given: tuple[str, ...] | None = None
    """The directories that were resolved (``cwd`` first)."""
    real: tuple[str, ...] = ()
    """Their real paths, in the same order."""

    def keep(self, given: tuple[str, ...], real: tuple[str, ...]) -> None:
        """``real`` are the real paths of ``given``."""
        self.given, self.real = given, real

    def known(self, given: tuple[str, ...]) -> tuple[str, ...] | None:
        """The real paths of ``given`` if they were resolved, else ``None``."""
        return self.real if self.given == given else None

    async def resolve(self, given: tuple[str, ...]) -> tuple[str, ...]:
        """The real paths of ``given``: kept ones, or resolved now in a worker thread (no time limit:
        a hung file system holds up only the session that waits for it)."""
        known = self.known(given)
        if known is None:
            known = await run_off_loop(real_paths, None, given)
            self.keep(given, known)
        return known
