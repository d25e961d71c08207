"""Limits of the client tools: command timeout, output limit, lines per read.

From the environment of ``langacp serve`` (what an editor's agent configuration sets)::

    LANGACP_COMMAND_TIMEOUT=120         # seconds a command may run when the model gives no timeout
    LANGACP_COMMAND_MAX_TIMEOUT=600     # the most the model may ask for
    LANGACP_COMMAND_OUTPUT_LIMIT=50000  # bytes of output kept (the tail)

or from code: ``make_client_tools(session, Settings(timeout=30))``.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

__all__ = ["Settings"]

log = logging.getLogger("langacp_client_tools")


def _number(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        log.warning("langacp-client-tools: %s=%r is not a number; using %s", name, raw, default)
        return default
    if value <= 0:
        log.warning("langacp-client-tools: %s must be positive; using %s", name, default)
        return default
    return value


@dataclass(frozen=True)
class Settings:
    """Limits of one session's tools (defaults read from the environment when created)."""

    timeout: float = field(default_factory=lambda: _number("LANGACP_COMMAND_TIMEOUT", 120.0))
    """Seconds a command may run when the model does not say."""
    max_timeout: float = field(default_factory=lambda: _number("LANGACP_COMMAND_MAX_TIMEOUT", 600.0))
    """The longest timeout the model may ask for."""
    output_limit: int = field(default_factory=lambda: int(_number("LANGACP_COMMAND_OUTPUT_LIMIT", 50_000)))
    """Bytes of a command's output kept: the tail, where errors and summaries are."""
    read_lines: int = 2000
    """Lines ``read_file`` returns when the model gives no limit."""
    max_read_chars: int = 200_000
    """Characters ``read_file`` returns at most, whatever the limit."""
    max_line_chars: int = 2000
    """A longer line is cut (minified files would otherwise fill the context)."""
    kill_grace: float = 2.0
    """Seconds between SIGTERM and SIGKILL when a local command is stopped."""

    def command_timeout(self, requested: float | None) -> float:
        """The timeout of one call: the model's (capped at :attr:`max_timeout`) or the default."""
        if requested is None or requested <= 0:
            return self.timeout
        return min(float(requested), self.max_timeout)
