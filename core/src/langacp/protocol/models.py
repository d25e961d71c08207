"""Typed models for the stable ACP v1 shapes the SDK (agent-client-protocol 0.12, schema 1.19) lacks.

Each is checked against the official schema (``@agentclientprotocol/sdk`` on npm,
``schema/v1/schema.json``) by ``core/tests/test_protocol_models.py``. When the SDK has them,
these become aliases of the SDK's models and then go.
"""

from __future__ import annotations

from typing import Any, Literal

from acp.schema import (
    AgentCapabilities,
    AudioContentBlock,
    ClientCapabilities,
    ClientSessionCapabilities,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    InitializeRequest,
    InitializeResponse,
    LoadSessionRequest,
    NewSessionRequest,
    ResourceContentBlock,
    ResumeSessionRequest,
    SessionCapabilities,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
)
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ClientCapabilitiesV1",
    "ClientSessionCapabilitiesV1",
    "CompactionCapabilities",
    "CompactionStatus",
    "CompactionSummaryChunk",
    "CompactionUpdate",
    "InitializeRequestV1",
    "NamedToolCallProgress",
    "NamedToolCallStart",
    "NoticeCapabilities",
    "NoticeSeverity",
    "NoticeUpdate",
    "ProtocolUpdate",
]

NoticeSeverity = Literal["info", "warning", "error"]
CompactionStatus = Literal["in_progress", "completed", "failed", "cancelled"]
ContentBlock = (
    TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock
)


class ProtocolUpdate(BaseModel):
    """A ``session/update`` the SDK cannot send (its ``SessionNotification`` does not know it).

    :func:`langacp.protocol.send_update` writes it as JSON itself.
    """

    model_config = ConfigDict(populate_by_name=True)

    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class NoticeUpdate(ProtocolUpdate):
    """``notice``: news for the user that is not conversation (only to a client with ``session.notices``)."""

    session_update: Literal["notice"] = Field(default="notice", alias="sessionUpdate")
    severity: NoticeSeverity
    title: str = Field(min_length=1)
    description: str | None = None


class CompactionUpdate(ProtocolUpdate):
    """``compaction_update``: a context compaction created or patched (only to a client with ``session.compaction``)."""

    session_update: Literal["compaction_update"] = Field(default="compaction_update", alias="sessionUpdate")
    compaction_id: str = Field(alias="compactionId")
    status: CompactionStatus
    summary: list[ContentBlock] | None = None
    error: str | None = None


class CompactionSummaryChunk(ProtocolUpdate):
    """``compaction_summary_chunk``: one content block appended to a compaction's summary."""

    session_update: Literal["compaction_summary_chunk"] = Field(
        default="compaction_summary_chunk", alias="sessionUpdate"
    )
    compaction_id: str = Field(alias="compactionId")
    content: ContentBlock


class NamedToolCallStart(ToolCallStart):
    """``tool_call`` with ``name``, the tool's programmatic name (stable v1; the SDK's model lacks it)."""

    name: str | None = None


class NamedToolCallProgress(ToolCallProgress):
    """``tool_call_update`` with ``name`` (stable v1; the SDK's model lacks it)."""

    name: str | None = None


class NoticeCapabilities(BaseModel):
    """``clientCapabilities.session.notices``: the client presents ``notice`` updates."""

    model_config = ConfigDict(populate_by_name=True)

    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class CompactionCapabilities(BaseModel):
    """``clientCapabilities.session.compaction``: the client shows compaction updates."""

    model_config = ConfigDict(populate_by_name=True)

    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class SubagentCapabilities(BaseModel):
    """Unstable ``clientCapabilities.subagents``: the client shows child sessions (``subagent_update``, …)."""

    model_config = ConfigDict(populate_by_name=True)

    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ClientSessionCapabilitiesV1(ClientSessionCapabilities):
    """The SDK's ``ClientSessionCapabilities`` with the stable ``notices`` and ``compaction`` it drops."""

    notices: NoticeCapabilities | None = None
    compaction: CompactionCapabilities | None = None


class ClientCapabilitiesV1(ClientCapabilities):
    """The SDK's ``ClientCapabilities`` whose ``session`` keeps ``notices`` and ``compaction``, with the
    unstable ``subagents`` (the SDK has the unstable ``plan``)."""

    session: ClientSessionCapabilitiesV1 | None = None  # type: ignore[assignment]
    subagents: SubagentCapabilities | None = None


class InitializeRequestV1(InitializeRequest):
    """``initialize`` parsed with :class:`ClientCapabilitiesV1` (what :mod:`langacp.protocol.routes` routes)."""

    client_capabilities: ClientCapabilitiesV1 | None = Field(  # type: ignore[assignment]
        default=None, alias="clientCapabilities"
    )


class SystemPrompt(BaseModel):
    """Unstable ``systemPrompt`` of ``session/new`` / load / resume: the client's instructions."""

    model_config = ConfigDict(populate_by_name=True)

    mode: str
    content: list[dict[str, Any]]
    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class NewSessionRequestU(NewSessionRequest):
    """``session/new`` with the unstable ``systemPrompt`` (the SDK's model drops it)."""

    system_prompt: SystemPrompt | None = Field(default=None, alias="systemPrompt")


class LoadSessionRequestU(LoadSessionRequest):
    """``session/load`` with the unstable ``systemPrompt``."""

    system_prompt: SystemPrompt | None = Field(default=None, alias="systemPrompt")


class ResumeSessionRequestU(ResumeSessionRequest):
    """``session/resume`` with the unstable ``systemPrompt``."""

    system_prompt: SystemPrompt | None = Field(default=None, alias="systemPrompt")


class SessionSystemPromptCapabilities(BaseModel):
    """Unstable ``sessionCapabilities.systemPrompt``: the agent takes a client ``systemPrompt`` (``append``)."""

    model_config = ConfigDict(populate_by_name=True)

    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class SystemPromptModeCapabilities(BaseModel):
    """Unstable ``sessionCapabilities.systemPrompt.mode``: the modes beyond ``append`` (``override``)."""

    model_config = ConfigDict(populate_by_name=True)

    override: SessionSystemPromptCapabilities | None = None
    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class SystemPromptCapabilities(SessionSystemPromptCapabilities):
    """Unstable ``sessionCapabilities.systemPrompt``: ``append``, and the modes ``mode`` lists."""

    mode: SystemPromptModeCapabilities | None = None


class SessionCapabilitiesU(SessionCapabilities):
    """The SDK's ``SessionCapabilities`` with the unstable ``systemPrompt``, ``title`` and ``status``."""

    system_prompt: SystemPromptCapabilities | None = Field(default=None, alias="systemPrompt")
    title: SessionSystemPromptCapabilities | None = None
    """``session/set_title`` (its capability object has only ``_meta``, as this one)."""
    status: SessionSystemPromptCapabilities | None = None
    """``session/status``."""


class SetSessionTitleRequest(BaseModel):
    """Unstable ``session/set_title``: store ``title`` for a session ``session/list`` would return."""

    model_config = ConfigDict(populate_by_name=True)

    session_id: str = Field(alias="sessionId")
    title: str
    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class SessionStatusRequest(BaseModel):
    """Unstable ``session/status``: whether the agent has the session in memory (``open``) or stored (``saved``)."""

    model_config = ConfigDict(populate_by_name=True)

    session_id: str = Field(alias="sessionId")
    field_meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class AgentCapabilitiesU(AgentCapabilities):
    """The SDK's ``AgentCapabilities`` whose ``sessionCapabilities`` may carry ``systemPrompt``."""

    session_capabilities: SessionCapabilitiesU = Field(  # type: ignore[assignment]
        default_factory=SessionCapabilitiesU, alias="sessionCapabilities"
    )


class InitializeResponseU(InitializeResponse):
    """``initialize``'s response with :class:`AgentCapabilitiesU` (to a client that speaks the unstable schema)."""

    agent_capabilities: AgentCapabilitiesU = Field(  # type: ignore[assignment]
        default_factory=AgentCapabilitiesU, alias="agentCapabilities"
    )
