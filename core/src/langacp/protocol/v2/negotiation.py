"""Which ACP version a connection speaks, and v2's ``initialize`` response drawn from v1's.

The client's ``initialize`` names the newest version it speaks: 2 gets 2, so does a newer one
asked with v2's ``info`` (the newest this build has); anything lower, or a newer version
without ``info`` (a v1 client probing), goes to the v1 path unchanged. A v2 connection then answers a
repeated ``initialize`` that asks for less than 2 with -32600: a connection never changes
version. The v2 response is the v1 one (capabilities as the plugins extended them, their auth
methods) in v2's shape, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from langacp.protocol.v2.models import (
    PROTOCOL_VERSION,
    AgentCapabilities,
    AuthMethod,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    PromptCapabilities,
    SessionCapabilities,
)

__all__ = ["FORGETS_SESSIONS", "requested_version", "speaks_v2", "v1_client_capabilities", "v2_initialize_response"]

FORGETS_SESSIONS = "langacp/forgetsSessions"
"""``capabilities._meta`` key, ``true`` when the agent keeps no session after it exits (the memory
store). v2 has no ``loadSession`` flag (resume is a baseline method), so this is how a v2 client
learns what v1's ``loadSession: false`` says; langacp's chat reads it to explain an empty list."""


def requested_version(params: Any) -> int | None:
    """The ``protocolVersion`` an ``initialize``'s params ask for (``None`` if it is not a valid one)."""
    version = params.get("protocolVersion") if isinstance(params, dict) else None
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= 65535:
        return None
    return version


def speaks_v2(params: Any) -> bool:
    """The client whose ``initialize`` has these ``params`` gets v2.

    It asked for 2, or for a newer version with v2's ``info``. A newer version without it (a v1
    client probing, as v1 clients may) gets v1, as it always did.
    """
    requested = requested_version(params)
    if requested is None or requested < PROTOCOL_VERSION:
        return False
    return requested == PROTOCOL_VERSION or "info" in params


def v1_client_capabilities(capabilities: ClientCapabilities) -> Any:
    """The v1 ``ClientCapabilities`` the session core reads for a v2 client.

    v2 clients have no ``fs/*`` or ``terminal/*`` methods (their absence is v1's default), do
    terminal auth when ``auth.terminal`` is set, and show notices and compactions (v2 updates
    that need no capability).
    """
    from langacp.protocol.models import ClientCapabilitiesV1

    auth = capabilities.auth or {}
    fields: dict[str, Any] = {
        "session": {"notices": {}, "compaction": {}, "configOptions": {"boolean": {}}},
        "auth": {"terminal": auth.get("terminal") is not None},
    }
    if capabilities.elicitation is not None:
        fields["elicitation"] = capabilities.elicitation
    try:
        return ClientCapabilitiesV1.model_validate(fields)
    except ValueError:  # an elicitation shape v1 does not know: without it
        fields.pop("elicitation", None)
        return ClientCapabilitiesV1.model_validate(fields)


def _present(flag: Any) -> dict[str, Any] | None:
    """v1's ``true`` / an object is v2's ``{}``; v1's ``false`` / absent is v2's omission."""
    return {} if flag else None


def v2_initialize_response(v1: Any) -> InitializeResponse:
    """v1's ``InitializeResponse`` model (what the core and the plugins offer) as v2's."""
    caps = v1.agent_capabilities
    prompt = caps.prompt_capabilities
    mcp = caps.mcp_capabilities
    sessions = caps.session_capabilities
    session = SessionCapabilities(
        prompt=PromptCapabilities(
            image=_present(getattr(prompt, "image", False)),
            audio=_present(getattr(prompt, "audio", False)),
            embeddedContext=_present(getattr(prompt, "embedded_context", False)),
        ),
        mcp=McpCapabilities(stdio={}, http=_present(getattr(mcp, "http", False))),
        delete=_present(getattr(sessions, "delete", None) is not None),
        additionalDirectories=_present(getattr(sessions, "additional_directories", None) is not None),
    )
    for model in (session.prompt, session.mcp, session):
        assert model is not None
        for name in list(model.model_fields_set):  # omit what is not offered rather than send null
            if getattr(model, name) is None:
                model.__pydantic_fields_set__.discard(name)
    capabilities = AgentCapabilities(session=session)
    meta = dict(caps.field_meta or {})
    if not caps.load_session:
        meta[FORGETS_SESSIONS] = True
    if meta:
        capabilities.field_meta = meta
    info = v1.agent_info
    response = InitializeResponse(
        protocolVersion=PROTOCOL_VERSION,
        info=Implementation(name=info.name, title=info.title, version=info.version),
        capabilities=capabilities,
    )
    methods = [_auth_method(m) for m in v1.auth_methods or []]
    if methods:  # a non-empty list promises auth/login and auth/logout
        response.auth_methods = methods
    return response


def _auth_method(method: Any) -> AuthMethod:
    fields = method.model_dump(mode="json", by_alias=True, exclude_none=True)
    fields["methodId"] = fields.pop("id")
    fields.setdefault("type", "agent")
    return AuthMethod.model_validate(fields)
