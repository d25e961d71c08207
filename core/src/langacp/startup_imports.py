"""Modules ``langacp serve`` keeps from being imported while it starts: the server never uses them.

``httpx`` imports its command-line client, ``httpx._main`` (with ``click``, ``rich`` and
``pygments``), whenever ``click`` is installed, and LangSmith imports ``httpx`` in every
LangChain process. With every plugin installed ``click`` is (langacp-mcp needs ``mcp``, which
needs ``uvicorn``, which needs ``click``): measured, ~4 MB of the served process's memory and
~50 ms of its start-up, for a client that only runs as the ``httpx`` command, in a process of
its own. While ``langacp serve`` starts, ``httpx._main`` is blocked (``None`` in
:data:`sys.modules` makes its import fail, and httpx then defines ``httpx.main`` as the stub it
uses when ``click`` is missing). The block is lifted once start-up is over, so a later
``import httpx._main`` works as usual.
"""

from __future__ import annotations

import sys

__all__ = ["BLOCKED", "block", "unblock"]

BLOCKED = ("httpx._main",)
"""Modules kept out of start-up."""

_ours: list[str] = []


def block() -> None:
    """Block :data:`BLOCKED` for start-up (``langacp serve`` only; a module already imported is left alone)."""
    for name in BLOCKED:
        if name not in sys.modules:
            sys.modules[name] = None  # type: ignore[assignment]
            _ours.append(name)


def unblock() -> None:
    """Start-up is over: lift the blocks :func:`block` set (a no-op if it set none)."""
    while _ours:
        name = _ours.pop()
        if name in sys.modules and sys.modules[name] is None:
            del sys.modules[name]
