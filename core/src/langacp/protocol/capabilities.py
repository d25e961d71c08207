"""What the client advertised beyond what the SDK reads, and what this build of langacp offers.

A stable v1 update that a capability gates (``notice``, ``compaction_update``,
``compaction_summary_chunk``) goes only to a client whose ``initialize`` advertised it: ask
:func:`client_notices` / :func:`client_compaction` before sending one.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "OFFERED",
    "SCHEMA",
    "client_boolean_options",
    "client_compaction",
    "client_notices",
    "client_plans",
    "client_subagents",
    "protocol_report",
]

SCHEMA = "ACP v1 (stable schema of @agentclientprotocol/sdk 2.4.0)"
"""The schema the updates below are checked against (``core/tests/test_protocol_models.py``)."""

OFFERED: dict[str, str] = {
    "notice": "session.notices: notices (skipped plugins and hooks, ignored project settings, dropped tools, ...)",
    "compaction": "session.compaction: compaction_update and summary chunks when the history is summarised, "
    "live and on session/load",
    "messageId": "messageId on every user, agent and thought chunk, live and on replay",
    "toolCallName": "name (the tool's programmatic name) on every tool call",
    "traceContext": "_meta.traceparent / tracestate of session/prompt parents the turn's LangSmith run and spans",
    "systemPrompt": "unstable sessionCapabilities.systemPrompt (append, override): the client's instructions",
    "sessionTitleStatus": "unstable session/set_title and session/status (sessionCapabilities.title / status)",
    "planOperations": "unstable clientCapabilities.plan: plan_update / plan_removed, plans by id (langacp-plans)",
    "subagents": "unstable clientCapabilities.subagents: a sub-agent's work (acp_agent_tool, task tool) as a session",
    "booleanConfigOptions": "session.configOptions.boolean: on/off config options "
    "(langacp-modes: auto-accept edits, thinking)",
}
"""The optional stable v1 features this build sends (to a client that advertises the capability that gates one)."""


def _session_capability(client_capabilities: Any, name: str) -> bool:
    session = getattr(client_capabilities, "session", None)
    if session is None and isinstance(client_capabilities, dict):
        session = client_capabilities.get("session")
    if isinstance(session, dict):
        return session.get(name) is not None
    return getattr(session, name, None) is not None


def client_notices(client_capabilities: Any) -> bool:
    """The client advertised ``session.notices``: it may be sent ``notice`` updates."""
    return _session_capability(client_capabilities, "notices")


def client_compaction(client_capabilities: Any) -> bool:
    """The client advertised ``session.compaction``: it may be sent ``compaction_update`` and its chunks."""
    return _session_capability(client_capabilities, "compaction")


def _client_capability(client_capabilities: Any, name: str) -> bool:
    if isinstance(client_capabilities, dict):
        return client_capabilities.get(name) is not None
    return getattr(client_capabilities, name, None) is not None


def client_plans(client_capabilities: Any) -> bool:
    """The client advertised the unstable ``plan``: it may be sent ``plan_update`` / ``plan_removed``."""
    return _client_capability(client_capabilities, "plan")


def client_subagents(client_capabilities: Any) -> bool:
    """The client advertised the unstable ``subagents``: a sub-agent's work may go to it as a child session."""
    return _client_capability(client_capabilities, "subagents")


def client_boolean_options(client_capabilities: Any) -> bool:
    """The client advertised ``session.configOptions.boolean``: it may be offered ``type: "boolean"`` config options."""
    session = getattr(client_capabilities, "session", None)
    options = getattr(session, "config_options", None)
    return getattr(options, "boolean", None) is not None


def protocol_report() -> dict[str, Any]:
    """The protocol version and this build's optional features, as ``langacp check`` / ``plugins --json`` show them."""
    from acp import PROTOCOL_VERSION

    return {"protocolVersion": PROTOCOL_VERSION, "schema": SCHEMA, "optional": dict(OFFERED)}
