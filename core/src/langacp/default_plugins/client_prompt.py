"""The client's own instructions: the unstable ``systemPrompt`` (``append`` / ``override``) of ``session/new`` /
load / resume. With ``override`` the factory's own instructions are left out (``SessionSetup.system_prompt``);
every plugin's addition stays (what the user installed and configured is not the client's to remove)."""

from __future__ import annotations

from langacp.hookspecs import hookimpl
from langacp.types import SessionContext


@hookimpl(trylast=True)
def langacp_system_prompt(session: SessionContext) -> str | None:
    """The client's ``systemPrompt`` text, after every plugin's addition (factory targets)."""
    from langacp.protocol import CLIENT_SYSTEM_PROMPT  # imported here: plugins load before the ACP SDK

    client = CLIENT_SYSTEM_PROMPT.get()
    return client.text if client is not None else None
