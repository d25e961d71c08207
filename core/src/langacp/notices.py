"""Notices the core sends from code that cannot await: a skipped hook, stored data that could not be read.

:func:`notify_once` sends a ``notice`` through the session's public :meth:`SessionContext.notify`
(only to a client that advertised ``session.notices``; for others it was logged already, as
before), at most once per ``key`` and session: a hook failing on every chunk of a stream tells
the user once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

__all__ = ["notify_once"]

log = logging.getLogger("langacp.notices")

_TASKS: set[asyncio.Task[Any]] = set()
"""Notices being sent (kept alive until sent)."""


class _Told(set[Any]):
    """The keys of the notices a session was sent (``session.scratch(_Told)``)."""


def notify_once(
    session: Any,
    key: Any,
    severity: Literal["info", "warning", "error"],
    title: str,
    description: str | None = None,
) -> None:
    """Send a notice for ``session`` (a ``SessionContext``) soon, unless one with ``key`` was sent to it before.

    From the event loop's thread only (elsewhere, and for a session without a client, nothing
    is sent: the caller has logged what happened).
    """
    if session.send_update is None:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # a worker thread (a sync tool's callbacks)
        return
    told = session.scratch(_Told)
    if key in told:
        return
    told.add(key)
    task = loop.create_task(_send(session, severity, title, description), name="langacp.notice")
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


async def _send(
    session: Any, severity: Literal["info", "warning", "error"], title: str, description: str | None
) -> None:
    try:
        await session.notify(severity, title, description)
    except Exception:
        log.debug("langacp: could not send the notice %r", title, exc_info=True)
