"""langacp.protocol's models against the official ACP schema (npm ``@agentclientprotocol/sdk`` 2.4.0,
``schema/v1/schema.json``, installed at test time): field names, required fields, and what they dump."""

from __future__ import annotations

from typing import Any

import pytest
from acp.schema import TextContentBlock
from pydantic import BaseModel, ValidationError

from acp_schema import Schema
from langacp.agent.handshake import speaks_unstable
from langacp.protocol import (
    CompactionSummaryChunk,
    CompactionUpdate,
    NamedToolCallProgress,
    NamedToolCallStart,
    NoticeUpdate,
    client_compaction,
    client_notices,
    update_json,
)
from langacp.protocol.models import ClientCapabilitiesV1, ClientSessionCapabilitiesV1, InitializeRequestV1

MODELS: list[tuple[type[BaseModel], str]] = [
    (NoticeUpdate, "Notice"),
    (CompactionUpdate, "CompactionUpdate"),
    (CompactionSummaryChunk, "CompactionSummaryChunk"),
    (NamedToolCallStart, "ToolCall"),
    (NamedToolCallProgress, "ToolCallUpdate"),
    (ClientSessionCapabilitiesV1, "ClientSessionCapabilities"),
]


def wire_names(model: type[BaseModel]) -> dict[str, bool]:
    """The model's JSON field names (aliases) and whether each is required, ``sessionUpdate`` left out."""
    return {
        (field.alias or name): field.is_required()
        for name, field in model.model_fields.items()
        if (field.alias or name) != "sessionUpdate"
    }


@pytest.mark.parametrize(("model", "definition"), MODELS, ids=[d for _, d in MODELS])
def test_protocol_model_fields_are_the_schemas(schema: Schema, model: type[BaseModel], definition: str) -> None:
    properties = schema.properties(definition)
    required = set(schema.defs[definition].get("required", []))
    names = wire_names(model)
    assert set(names) == set(properties), f"{model.__name__} differs from $defs/{definition}"
    assert {name for name, needed in names.items() if needed} == required


def updates() -> list[Any]:
    text = TextContentBlock(type="text", text="The conversation so far: a plan.")
    return [
        NoticeUpdate(severity="warning", title="Ignored a key", description="modes.default in .langacp.toml"),
        NoticeUpdate(severity="info", title="Minimal"),
        CompactionUpdate(compaction_id="c1", status="in_progress"),
        CompactionUpdate(compaction_id="c1", status="completed", summary=[text]),
        CompactionSummaryChunk(compaction_id="c1", content=text),
        NamedToolCallStart(session_update="tool_call", tool_call_id="t1", title="Adding", kind="other", name="add"),
        NamedToolCallProgress(session_update="tool_call_update", tool_call_id="t1", status="completed", name="add"),
    ]


@pytest.mark.parametrize("update", updates(), ids=lambda u: type(u).__name__)
def test_protocol_updates_validate_as_session_notifications(schema: Schema, update: Any) -> None:
    wire = update_json(update)
    schema.validate("SessionNotification", {"sessionId": "s1", "update": wire})
    if isinstance(update, (NamedToolCallStart, NamedToolCallProgress)):
        assert wire["name"] == "add"


def test_protocol_models_refuse_what_the_schema_refuses(schema: Schema) -> None:
    with pytest.raises(ValidationError):
        NoticeUpdate(severity="warning", title="")  # minLength 1
    assert schema.errors("Notice", {"severity": "warning", "title": ""})
    with pytest.raises(ValidationError):
        CompactionUpdate.model_validate({"status": "completed"})  # compactionId required
    assert schema.errors("CompactionUpdate", {"status": "completed"})


def test_protocol_initialize_keeps_the_stable_client_capabilities(schema: Schema) -> None:
    params = {
        "protocolVersion": 1,
        "clientCapabilities": {"session": {"notices": {}, "compaction": {}, "configOptions": {"boolean": {}}}},
    }
    schema.validate("InitializeRequest", params)
    request = InitializeRequestV1.model_validate(params)
    caps = request.client_capabilities
    assert isinstance(caps, ClientCapabilitiesV1)
    assert client_notices(caps) and client_compaction(caps)
    assert not speaks_unstable(caps), "session.compaction is stable v1: no sign of the unstable schema"
    bare = InitializeRequestV1.model_validate({"protocolVersion": 1, "clientCapabilities": {}})
    assert not client_notices(bare.client_capabilities) and not client_compaction(bare.client_capabilities)


def test_protocol_schema_allows_message_ids_without_a_capability(schema: Schema) -> None:
    """``messageId`` is part of every v1 content chunk: no client capability gates it."""
    chunk = schema.defs["ContentChunk"]
    assert "messageId" in chunk["properties"]
    text = {"type": "text", "text": "hi"}
    for kind in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk"):
        schema.validate("SessionUpdate", {"sessionUpdate": kind, "content": text, "messageId": "m-1"})
    for gated in ("notice", "compaction_update", "compaction_summary_chunk"):
        variants = schema.defs["SessionUpdate"]["oneOf"]
        described = [o for o in variants if o["properties"]["sessionUpdate"].get("const") == gated]
        assert "Client capability" in described[0]["description"]
