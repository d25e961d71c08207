"""The connection's first steps: ``initialize`` (capabilities, auth methods), ``authenticate`` and ``logout``.

Only what works is advertised: ``session/delete`` when the store can delete, ``logout`` when the
model has a key to forget, terminal auth methods only to clients that run them. What is only
in ACP's unstable schema (``session/fork`` in ``sessionCapabilities``, ``usage`` in the prompt
response) is offered only to a client that speaks it: see :func:`speaks_unstable`.
"""

from __future__ import annotations

from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentAuthCapabilities,
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    LogoutCapabilities,
    McpCapabilities,
    PromptCapabilities,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionDeleteCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
)

from langacp import __version__
from langacp.plugins import Plugins

__all__ = ["UNSTABLE_META", "authenticate", "initialize_response", "logout", "speaks_unstable"]

UNSTABLE_META = "unstable"
"""``clientCapabilities._meta.unstable: true``: the client speaks ACP's unstable schema (the test harness says so)."""


def speaks_unstable(client_capabilities: Any) -> bool:
    """Whether the client speaks ACP's unstable schema.

    ACP has no negotiation for it: a client says so with ``_meta.unstable: true`` in its
    capabilities, or by declaring a capability only the unstable schema has (``plan``,
    ``subagents``, ``positionEncodings``, ``nes``). ``session.compaction`` and ``session.notices`` are stable
    v1 (:mod:`langacp.protocol.capabilities`): they say nothing about the unstable schema.
    """
    if client_capabilities is None:
        return False
    meta = getattr(client_capabilities, "field_meta", None) or {}
    if meta.get(UNSTABLE_META) is True:
        return True
    unstable_only = ("plan", "subagents", "position_encodings", "nes")
    return any(getattr(client_capabilities, name, None) is not None for name in unstable_only)


def initialize_response(
    plugins: Plugins, *, load_session: bool, delete: bool = False, client_capabilities: Any = None
) -> InitializeResponse:
    """What this agent offers: the core's capabilities as the plugins extend them, and their auth methods."""
    from langacp import auth
    from langacp.protocol.models import (
        AgentCapabilitiesU,
        InitializeResponseU,
        SessionCapabilitiesU,
        SystemPromptCapabilities,
        SystemPromptModeCapabilities,
    )
    from langacp.protocol.models import SessionSystemPromptCapabilities as Offered

    unstable = speaks_unstable(client_capabilities)

    offered: dict[str, Any] = dict(
        load_session=load_session,
        prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
        mcp_capabilities=McpCapabilities(http=False, sse=False),
        session_capabilities=(SessionCapabilitiesU if unstable else SessionCapabilities)(
            list=SessionListCapabilities(),
            close=SessionCloseCapabilities(),
            resume=SessionResumeCapabilities(),
            additional_directories=SessionAdditionalDirectoriesCapabilities(),
            delete=SessionDeleteCapabilities() if delete else None,
            fork=SessionForkCapabilities() if unstable else None,
        ),
        auth=AgentAuthCapabilities(logout=LogoutCapabilities()) if auth.current_key() is not None else None,
    )
    capabilities = AgentCapabilitiesU(**offered) if unstable else AgentCapabilities(**offered)
    if isinstance(capabilities.session_capabilities, SessionCapabilitiesU):
        # Unstable: the client's systemPrompt (append, override) on session/new, load and resume.
        override = SystemPromptModeCapabilities(override=Offered())
        capabilities.session_capabilities.system_prompt = SystemPromptCapabilities(mode=override)
        capabilities.session_capabilities.title = Offered()  # session/set_title
        capabilities.session_capabilities.status = Offered()  # session/status
    plugins.agent_capabilities(capabilities)
    terminal = auth.client_runs_terminal_auth(client_capabilities)
    methods = [m for m in plugins.auth_methods() if terminal or getattr(m, "type", None) != "terminal"]
    fields: dict[str, Any] = {
        "protocol_version": PROTOCOL_VERSION,
        "agent_capabilities": capabilities,
        "auth_methods": methods,
        "agent_info": Implementation(name="langacp", title="langacp", version=__version__),
    }
    return InitializeResponseU(**fields) if unstable else InitializeResponse(**fields)


async def authenticate(plugins: Plugins, method_id: str) -> None:
    """Ask the plugins to authenticate: -32602 for a method none offers, -32000 if it fails."""
    ok = await plugins.authenticate(method_id)
    if ok is None:
        raise RequestError.invalid_params({"details": f"unknown auth method {method_id!r}"})
    if not ok:
        raise RequestError.auth_required({"details": f"authentication with {method_id!r} failed"})


async def logout() -> None:
    """Forget the configured model's stored key (and the copy this process took); -32601 if there is none to forget."""
    import asyncio

    from langacp import auth

    key = auth.current_key()
    if key is None:
        raise RequestError.method_not_found("logout")
    await asyncio.to_thread(auth.forget_key, key)
