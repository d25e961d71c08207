"""langacp.protocol.v2's models against the official ACP v2 schema (npm ``@agentclientprotocol/sdk`` 2.4.0,
``schema/v2/schema.json``, installed at test time): field names, required fields, what they dump."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from acp_schema import Schema
from langacp.protocol.v2 import models as v2
from langacp.protocol.v2.negotiation import requested_version, speaks_v2

VARIANT = {"sessionUpdate", "state", "type", "value", "error", "stopReason"}
"""Discriminators and variant fields the schema defines in ``anyOf`` parts, not in the definition's properties."""

MODELS: list[tuple[type[BaseModel], str]] = [
    (v2.InitializeRequest, "InitializeRequest"),
    (v2.InitializeResponse, "InitializeResponse"),
    (v2.Implementation, "Implementation"),
    (v2.ClientCapabilities, "ClientCapabilities"),
    (v2.AgentCapabilities, "AgentCapabilities"),
    (v2.SessionCapabilities, "SessionCapabilities"),
    (v2.PromptCapabilities, "PromptCapabilities"),
    (v2.McpCapabilities, "McpCapabilities"),
    (v2.AuthMethod, "AuthMethodAgent"),
    (v2.LoginAuthRequest, "LoginAuthRequest"),
    (v2.LogoutAuthRequest, "LogoutAuthRequest"),
    (v2.NewSessionRequest, "NewSessionRequest"),
    (v2.NewSessionResponse, "NewSessionResponse"),
    (v2.ResumeSessionRequest, "ResumeSessionRequest"),
    (v2.ResumeSessionResponse, "ResumeSessionResponse"),
    (v2.ListSessionsRequest, "ListSessionsRequest"),
    (v2.CloseSessionRequest, "CloseSessionRequest"),
    (v2.DeleteSessionRequest, "DeleteSessionRequest"),
    (v2.SetSessionConfigOptionRequest, "SetSessionConfigOptionRequest"),
    (v2.PromptRequest, "PromptRequest"),
    (v2.PromptResponse, "PromptResponse"),
    (v2.CancelToolCallRequest, "CancelToolCallRequest"),
    (v2.CancelTerminalRequest, "CancelTerminalRequest"),
    (v2.RunningState, "RunningStateUpdate"),
    (v2.RequiresActionState, "RequiresActionStateUpdate"),
    (v2.IdleState, "IdleStateUpdate"),
    (v2.ContentChunk, "ContentChunk"),
    (v2.UserMessage, "UserMessage"),
    (v2.AgentMessage, "AgentMessage"),
    (v2.AgentThought, "AgentThought"),
    (v2.ToolCallUpdate, "ToolCallUpdate"),
    (v2.ToolCallContentChunk, "ToolCallContentChunk"),
    (v2.ToolCallCapabilities, "ToolCallCapabilities"),
    (v2.ToolCallPermissionSubject, "ToolCallPermissionSubject"),
    (v2.CommandPermissionSubject, "CommandPermissionSubject"),
    (v2.RequestPermissionRequest, "RequestPermissionRequest"),
]


def wire_names(model: type[BaseModel]) -> dict[str, bool]:
    return {
        (field.alias or name): field.is_required()
        for name, field in model.model_fields.items()
        if (field.alias or name) not in VARIANT
    }


@pytest.mark.parametrize(("model", "definition"), MODELS, ids=[d for _, d in MODELS])
def test_v2_model_fields_are_the_schemas(v2_schema: Schema, model: type[BaseModel], definition: str) -> None:
    properties = set(v2_schema.properties(definition)) - VARIANT
    required = set(v2_schema.defs[definition].get("required", [])) - VARIANT
    names = wire_names(model)
    assert set(names) == properties, f"{model.__name__} differs from $defs/{definition}"
    assert {name for name, needed in names.items() if needed} == required


def samples() -> list[tuple[str, BaseModel]]:
    text = {"type": "text", "text": "hello"}
    return [
        ("SessionUpdate", v2.RunningState()),
        ("SessionUpdate", v2.RequiresActionState()),
        ("SessionUpdate", v2.IdleState(stopReason="end_turn")),
        ("SessionUpdate", v2.IdleState(stopReason="cancelled")),
        ("SessionUpdate", v2.IdleState(stopReason="error", error={"code": -32603, "message": "boom"})),
        ("SessionUpdate", v2.IdleState()),
        ("SessionUpdate", v2.ContentChunk(sessionUpdate="agent_message_chunk", messageId="m1", content=text)),
        ("SessionUpdate", v2.ContentChunk(sessionUpdate="user_message_chunk", messageId="u1", content=text)),
        ("SessionUpdate", v2.ContentChunk(sessionUpdate="agent_thought_chunk", messageId="t1", content=text)),
        ("SessionUpdate", v2.UserMessage(messageId="u1", content=[text])),
        ("SessionUpdate", v2.AgentMessage(messageId="m1", content=None)),
        ("SessionUpdate", v2.AgentThought(messageId="t1")),
        ("SessionUpdate", v2.ToolCallUpdate(toolCallId="c1", title="Adding", kind="other", status="pending")),
        ("SessionUpdate", v2.ToolCallUpdate(toolCallId="c1", title=None, locations=None, rawOutput={"r": 3})),
        ("SessionUpdate", v2.ToolCallUpdate(toolCallId="c1", capabilities=v2.ToolCallCapabilities(cancel={}))),
        ("SessionUpdate", v2.ToolCallContentChunk(toolCallId="c1", content={"type": "content", "content": text})),
        ("PromptResponse", v2.PromptResponse(messageId="u1")),
        (
            "RequestPermissionRequest",
            v2.RequestPermissionRequest(
                sessionId="s",
                title="Run add?",
                subject=v2.ToolCallPermissionSubject(toolCall={"toolCallId": "c1", "title": "Adding"}),
                options=[{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"}],
            ),
        ),
        (
            "InitializeResponse",
            v2.InitializeResponse(
                protocolVersion=2,
                info=v2.Implementation(name="langacp", version="1"),
                capabilities=v2.AgentCapabilities(session=v2.SessionCapabilities(mcp=v2.McpCapabilities(stdio={}))),
                authMethods=[v2.AuthMethod(methodId="env", name="From the environment")],
            ),
        ),
    ]


@pytest.mark.parametrize(("definition", "model"), samples(), ids=lambda v: getattr(v, "__name__", None))
def test_v2_models_dump_what_the_schema_accepts(v2_schema: Schema, definition: str, model: BaseModel) -> None:
    v2_schema.validate(definition, v2.wire(model))


def test_v2_wire_keeps_patch_semantics() -> None:
    """Omitted fields stay off the wire; ``None`` set on purpose is ``null`` (clears the value)."""
    assert v2.wire(v2.ToolCallUpdate(toolCallId="c1", status="completed")) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
    }
    cleared = v2.wire(v2.ToolCallUpdate(toolCallId="c1", title=None))
    assert "title" in cleared and cleared["title"] is None
    assert v2.wire(v2.AgentMessage(messageId="m", content=None)) == {
        "sessionUpdate": "agent_message",
        "messageId": "m",
        "content": None,
    }
    assert v2.wire(v2.IdleState()) == {"sessionUpdate": "state_update", "state": "idle"}


def test_v2_models_refuse_what_the_schema_refuses(v2_schema: Schema) -> None:
    with pytest.raises(ValidationError):
        v2.PromptResponse.model_validate({})  # messageId required
    assert v2_schema.errors("PromptResponse", {})
    with pytest.raises(ValidationError):
        v2.PromptRequest.model_validate({"sessionId": "s", "prompt": []})  # minItems 1
    assert v2_schema.errors("PromptRequest", {"sessionId": "s", "prompt": []})
    with pytest.raises(ValidationError):
        v2.ContentChunk.model_validate({"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}})
    bad: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
    assert v2_schema.errors("SessionUpdate", bad), "messageId is required in v2"


def test_v2_negotiation_picks_the_version() -> None:
    info = {"name": "c", "version": "1"}
    asked = [speaks_v2({"protocolVersion": v, "info": info}) for v in (0, 1, 2, 3, 65535)]
    assert asked == [False, False, True, True, True]
    assert speaks_v2({"protocolVersion": 2, "clientCapabilities": {}}), "2 is 2, whatever else comes with it"
    assert not speaks_v2({"protocolVersion": 99}), "a v1 client probing keeps v1"
    assert not speaks_v2({"protocolVersion": 99, "clientCapabilities": {}}), "a v1 client probing keeps v1"
    for bad in ({"protocolVersion": True}, {"protocolVersion": "2"}, {"protocolVersion": -1}, {}, None, [2]):
        assert requested_version(bad) is None and not speaks_v2(bad)
