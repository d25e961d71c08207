"""The client's own instructions: the unstable ``systemPrompt`` (``append``) of ``session/new`` / load / resume."""

from __future__ import annotations

from langacp.hookspecs import hookimpl
from langacp.types import SessionContext


@hookimpl(trylast=True)
def langacp_system_prompt(session: SessionContext) -> str | None:
    """The client's ``systemPrompt`` text, after every plugin's addition (factory targets)."""
    from langacp.protocol import CLIENT_SYSTEM_PROMPT  # imported here: plugins load before the ACP SDK

    return CLIENT_SYSTEM_PROMPT.get()
