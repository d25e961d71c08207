"""The hooks of langacp-remote (entry point ``remote`` in group ``langacp``).

Editor requests raised by :mod:`langacp_remote.editor` tools on a LangGraph Server are answered
here, through the editor. Loading this module is cheap (no LangChain, no SDK).
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from langacp import SessionContext, hookimpl

__all__ = ["langacp_resume_interrupt"]


@hookimpl
def langacp_resume_interrupt(session: SessionContext, interrupts: Sequence[Any]) -> Awaitable[Any] | None:
    """Fulfil the interrupts if they are all editor requests (``None`` otherwise: not ours)."""
    from langacp_remote.fulfil import editor_request, fulfil

    requests = [editor_request(interrupt) for interrupt in interrupts]
    if not requests or any(request is None for request in requests):
        return None
    return fulfil(session, interrupts, [r for r in requests if r is not None])
