"""A command's stdout whose reader went away (``langacp plugins | head -1``): exit quietly.

Python ignores SIGPIPE, so a write to a closed pipe raises :class:`BrokenPipeError`, and the
interpreter's last flush of ``sys.stdout`` would print a second traceback. Every ``langacp``
command ends the way a shell tool killed by SIGPIPE does: exit status 141, nothing on stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["EXIT_STDOUT_CLOSED", "stdout_closed"]

EXIT_STDOUT_CLOSED = 141
"""Exit code when whoever reads our stdout goes away (128 + SIGPIPE, as a shell reports it)."""


def stdout_closed() -> None:
    """Point stdout at /dev/null: whoever read it went away, and further writes must not raise."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
