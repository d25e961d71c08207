"""The connection's first steps: ``initialize`` (capabilities, auth methods) and ``authenticate``."""

from __future__ import annotations

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    PromptCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
)

from langacp import __version__
from langacp.plugins import Plugins

__all__ = ["authenticate", "initialize_response"]


def initialize_response(plugins: Plugins, *, load_session: bool) -> InitializeResponse:
    """What this agent offers: the core's capabilities as the plugins extend them, and their auth methods."""
    capabilities = AgentCapabilities(
        load_session=load_session,
        prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
        mcp_capabilities=McpCapabilities(http=False, sse=False),
        session_capabilities=SessionCapabilities(
            list=SessionListCapabilities(),
            close=SessionCloseCapabilities(),
            resume=SessionResumeCapabilities(),
            fork=SessionForkCapabilities(),
        ),
    )
    plugins.agent_capabilities(capabilities)
    return InitializeResponse(
        protocol_version=PROTOCOL_VERSION,
        agent_capabilities=capabilities,
        auth_methods=plugins.auth_methods(),
        agent_info=Implementation(name="langacp", title="langacp", version=__version__),
    )


async def authenticate(plugins: Plugins, method_id: str) -> None:
    """Ask the plugins to authenticate: -32602 for a method none offers, -32000 if it fails."""
    ok = await plugins.authenticate(method_id)
    if ok is None:
        raise RequestError.invalid_params({"details": f"unknown auth method {method_id!r}"})
    if not ok:
        raise RequestError.auth_required({"details": f"authentication with {method_id!r} failed"})
