"""The hooks of langacp-remote (entry point ``remote`` in group ``langacp``).

Editor requests raised by :mod:`langacp_remote.editor` tools on a LangGraph Server are answered
here, through the editor; a remote graph's context schema is offered as config options
(:mod:`langacp_remote.options`). Loading this module is cheap (no LangChain, no SDK); for a
local session every hook answers "not mine".
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from langacp.api import SessionContext, hookimpl

__all__ = [
    "langacp_config_options",
    "langacp_prompt_started",
    "langacp_resume_interrupt",
    "langacp_set_config_option",
]


@hookimpl
def langacp_resume_interrupt(session: SessionContext, interrupts: Sequence[Any]) -> Awaitable[Any] | None:
    """Fulfil the interrupts if they are all editor requests (``None`` otherwise: not ours)."""
    from langacp_remote.fulfil import editor_request, fulfil

    requests = [editor_request(interrupt) for interrupt in interrupts]
    if not requests or any(request is None for request in requests):
        return None
    return fulfil(session, interrupts, [r for r in requests if r is not None])


@hookimpl
def langacp_config_options(session: SessionContext) -> list[Any]:
    """The remote graph's context choices (see :mod:`langacp_remote.options`)."""
    from langacp_remote.options import config_options

    return config_options(session)


@hookimpl
def langacp_set_config_option(session: SessionContext, config_id: str, value: str | bool) -> bool | None:
    from langacp_remote.options import set_option

    return set_option(session, config_id, value)


@hookimpl
def langacp_prompt_started(session: SessionContext, prompt: Sequence[Any]) -> None:
    """The run about to start gets the session's chosen context."""
    from langacp_remote.options import prepare_run

    prepare_run(session)
