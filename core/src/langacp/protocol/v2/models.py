"""Typed models of the ACP v2 (Preview) wire shapes langacp speaks (``schema/v2/schema.json``).

Checked against the official schema (npm ``@agentclientprotocol/sdk``, installed at test time) by
``tests/test_v2_models.py``. v2 upserts have patch semantics (omitted = unchanged, ``null`` =
cleared): :func:`wire` therefore dumps only the fields that were set, ``None`` as ``null``.
Content blocks and tool-call content stay plain JSON objects (their v1 wire form, which v2 keeps
for content blocks; :mod:`langacp.protocol.v2.mapping` converts what differs).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeVar

from acp import RequestError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "PROTOCOL_VERSION",
    "AgentCapabilities",
    "AgentMessage",
    "AgentThought",
    "AuthMethod",
    "CancelTerminalRequest",
    "CancelToolCallRequest",
    "ClientCapabilities",
    "CloseSessionRequest",
    "CommandPermissionSubject",
    "ContentChunk",
    "DeleteSessionRequest",
    "IdleState",
    "Implementation",
    "InitializeRequest",
    "InitializeResponse",
    "ListSessionsRequest",
    "LoginAuthRequest",
    "LogoutAuthRequest",
    "McpCapabilities",
    "NewSessionRequest",
    "NewSessionResponse",
    "PromptCapabilities",
    "PromptRequest",
    "PromptResponse",
    "ReplayFrom",
    "RequestPermissionRequest",
    "RequiresActionState",
    "ResumeSessionRequest",
    "ResumeSessionResponse",
    "RunningState",
    "SessionCapabilities",
    "SetSessionConfigOptionRequest",
    "StopReason",
    "ToolCallCapabilities",
    "ToolCallContentChunk",
    "ToolCallPermissionSubject",
    "ToolCallUpdate",
    "UserMessage",
    "V2Model",
    "parse",
    "wire",
]

PROTOCOL_VERSION = 2
"""The ACP version these models are: a client whose ``initialize`` asks for 2 or more gets it."""

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", "error"]
Json = dict[str, Any]
M = TypeVar("M", bound=BaseModel)


class V2Model(BaseModel):
    """A v2 wire object: camelCase aliases, ``_meta``, dumped by :func:`wire` (set fields only)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    ALWAYS: ClassVar[tuple[str, ...]] = ()
    """Fields always on the wire even when left at their default (the discriminators)."""

    field_meta: Json | None = Field(default=None, alias="_meta")

    def model_post_init(self, context: Any, /) -> None:
        self.__pydantic_fields_set__.update(self.ALWAYS)


def parse(model: type[M], params: Any) -> M:
    """``params`` as ``model``; -32602 with the first problem when they do not fit."""
    try:
        return model.model_validate(params if params is not None else {})
    except ValidationError as exc:
        errors = exc.errors()
        where = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        message = errors[0]["msg"] if errors else "invalid"
        raise RequestError.invalid_params({"details": f"{where}: {message}"[:300]}) from exc


def wire(model: BaseModel) -> Json:
    """``model`` as it goes on the wire: camelCase, only the fields that were set (``None`` = ``null``)."""
    dumped: Json = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dumped


# -- initialize ----------------------------------------------------------------------------------


class Implementation(V2Model):
    """``info`` of ``initialize`` (request and response)."""

    name: str
    title: str | None = None
    version: str


class ClientCapabilities(V2Model):
    """``capabilities`` of a v2 ``initialize`` request (``auth.terminal``, ``elicitation``)."""

    auth: Json | None = None
    elicitation: Json | None = None


class InitializeRequest(V2Model):
    """A v2 ``initialize``: ``info`` and ``capabilities`` (v1 called them ``clientInfo`` / ``clientCapabilities``)."""

    protocol_version: int = Field(alias="protocolVersion", ge=0, le=65535)
    info: Implementation
    capabilities: ClientCapabilities = Field(default_factory=ClientCapabilities)


class PromptCapabilities(V2Model):
    """``session.prompt``: which content blocks beyond text and resource links a prompt may carry."""

    image: Json | None = None
    audio: Json | None = None
    embedded_context: Json | None = Field(default=None, alias="embeddedContext")


class McpCapabilities(V2Model):
    """``session.mcp``: the MCP transports the agent connects to."""

    stdio: Json | None = None
    http: Json | None = None


class SessionCapabilities(V2Model):
    """``capabilities.session`` (list, resume and close are baseline in v2: no capability for them)."""

    prompt: PromptCapabilities | None = None
    mcp: McpCapabilities | None = None
    delete: Json | None = None
    additional_directories: Json | None = Field(default=None, alias="additionalDirectories")


class AgentCapabilities(V2Model):
    """``capabilities`` of a v2 ``initialize`` response."""

    session: SessionCapabilities | None = None
    auth: Json | None = None


class AuthMethod(V2Model):
    """An auth method (``type: agent``: the agent does the work on ``auth/login``)."""

    ALWAYS = ("type",)

    type: str = "agent"
    method_id: str = Field(alias="methodId")
    name: str
    description: str | None = None


class InitializeResponse(V2Model):
    """A v2 ``initialize`` response."""

    protocol_version: int = Field(alias="protocolVersion")
    info: Implementation
    capabilities: AgentCapabilities = Field(default_factory=AgentCapabilities)
    auth_methods: list[AuthMethod] | None = Field(default=None, alias="authMethods")


class LoginAuthRequest(V2Model):
    """``auth/login`` (v1's ``authenticate``)."""

    method_id: str = Field(alias="methodId")


class LogoutAuthRequest(V2Model):
    """``auth/logout`` (v1's ``logout``)."""


# -- sessions -------------------------------------------------------------------------------------


class NewSessionRequest(V2Model):
    """``session/new``."""

    cwd: str
    additional_directories: list[str] | None = Field(default=None, alias="additionalDirectories")
    mcp_servers: list[Json] | None = Field(default=None, alias="mcpServers")


class NewSessionResponse(V2Model):
    """``session/new``'s response: modes are config options in v2."""

    session_id: str = Field(alias="sessionId")
    config_options: list[Json] | None = Field(default=None, alias="configOptions")
    available_commands: list[Json] | None = Field(default=None, alias="availableCommands")


class ReplayFrom(V2Model):
    """``replayFrom`` of ``session/resume``: only ``{"type": "start"}`` (all retained history) is defined."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    type: str


class ResumeSessionRequest(V2Model):
    """``session/resume`` (v2 folds ``session/load`` into it: ``replayFrom`` asks for the replay)."""

    session_id: str = Field(alias="sessionId")
    cwd: str
    additional_directories: list[str] | None = Field(default=None, alias="additionalDirectories")
    mcp_servers: list[Json] | None = Field(default=None, alias="mcpServers")
    replay_from: ReplayFrom | None = Field(default=None, alias="replayFrom")


class ResumeSessionResponse(V2Model):
    """``session/resume``'s response."""

    config_options: list[Json] | None = Field(default=None, alias="configOptions")
    available_commands: list[Json] | None = Field(default=None, alias="availableCommands")


class ListSessionsRequest(V2Model):
    """``session/list``."""

    cwd: str | None = None
    cursor: str | None = None


class CloseSessionRequest(V2Model):
    """``session/close``: cancels the session's work, then frees it."""

    session_id: str = Field(alias="sessionId")


class DeleteSessionRequest(V2Model):
    """``session/delete``."""

    session_id: str = Field(alias="sessionId")


class SetSessionConfigOptionRequest(V2Model):
    """``session/set_config_option``: ``type`` ``id`` (a select's value id) or ``boolean``."""

    session_id: str = Field(alias="sessionId")
    config_id: str = Field(alias="configId")
    type: str
    value: Any


# -- prompt and its turn --------------------------------------------------------------------------


class PromptRequest(V2Model):
    """``session/prompt``."""

    session_id: str = Field(alias="sessionId")
    prompt: list[Json] = Field(min_length=1)


class PromptResponse(V2Model):
    """``session/prompt``'s response: the prompt was inserted as the user message ``messageId``."""

    message_id: str = Field(alias="messageId")


class CancelToolCallRequest(V2Model):
    """``tool_call/cancel``: cancel one tool call that advertises ``capabilities.cancel``."""

    session_id: str = Field(alias="sessionId")
    tool_call_id: str = Field(alias="toolCallId")


class CancelTerminalRequest(V2Model):
    """``terminal/cancel``: cancel one terminal's command."""

    session_id: str = Field(alias="sessionId")
    terminal_id: str = Field(alias="terminalId")


# -- session updates ------------------------------------------------------------------------------


class RunningState(V2Model):
    """``state_update`` ``running``: foreground work is in progress."""

    ALWAYS = ("session_update", "state")

    session_update: Literal["state_update"] = Field(default="state_update", alias="sessionUpdate")
    state: Literal["running"] = "running"
    background: list[Json] | None = None


class RequiresActionState(V2Model):
    """``state_update`` ``requires_action``: the turn waits for the user (a permission, a question)."""

    ALWAYS = ("session_update", "state")

    session_update: Literal["state_update"] = Field(default="state_update", alias="sessionUpdate")
    state: Literal["requires_action"] = "requires_action"
    background: list[Json] | None = None


class IdleState(V2Model):
    """``state_update`` ``idle``, with the stop reason when it ends foreground work."""

    ALWAYS = ("session_update", "state")

    session_update: Literal["state_update"] = Field(default="state_update", alias="sessionUpdate")
    state: Literal["idle"] = "idle"
    background: list[Json] | None = None
    stop_reason: StopReason | None = Field(default=None, alias="stopReason")
    error: Json | None = None
    """With ``stopReason: error``: the ``Error`` (code, message) that ended the work."""


MessageKind = Literal["user_message", "agent_message", "agent_thought"]
ChunkKind = Literal["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]


class ContentChunk(V2Model):
    """``user_message_chunk`` / ``agent_message_chunk`` / ``agent_thought_chunk``: appended to ``messageId``."""

    ALWAYS = ("session_update",)

    session_update: ChunkKind = Field(alias="sessionUpdate")
    message_id: str = Field(alias="messageId")
    content: Json


class _Message(V2Model):
    ALWAYS = ("session_update",)

    message_id: str = Field(alias="messageId")
    content: list[Json] | None = None
    """Patch: omitted leaves the message's content, ``None`` clears it, a list replaces it."""


class UserMessage(_Message):
    """``user_message``: a whole user message (upsert by ``messageId``)."""

    session_update: Literal["user_message"] = Field(default="user_message", alias="sessionUpdate")


class AgentMessage(_Message):
    """``agent_message``: a whole agent message (upsert by ``messageId``)."""

    session_update: Literal["agent_message"] = Field(default="agent_message", alias="sessionUpdate")


class AgentThought(_Message):
    """``agent_thought``: a whole thought (upsert by ``messageId``)."""

    session_update: Literal["agent_thought"] = Field(default="agent_thought", alias="sessionUpdate")


class ToolCallCapabilities(V2Model):
    """``capabilities`` of a tool call: ``cancel`` when ``tool_call/cancel`` may stop it."""

    cancel: Json | None = None


class ToolCallUpdate(V2Model):
    """``tool_call_update``: the one upsert of a tool call (v2 has no separate ``tool_call``)."""

    ALWAYS = ("session_update",)

    session_update: Literal["tool_call_update"] = Field(default="tool_call_update", alias="sessionUpdate")
    tool_call_id: str = Field(alias="toolCallId")
    name: str | None = None
    title: str | None = None
    kind: str | None = None
    status: str | None = None
    content: list[Json] | None = None
    locations: list[Json] | None = None
    raw_input: Any = Field(default=None, alias="rawInput")
    raw_output: Any = Field(default=None, alias="rawOutput")
    capabilities: ToolCallCapabilities | None = None


class ToolCallContentChunk(V2Model):
    """``tool_call_content_chunk``: one content item appended to a tool call."""

    ALWAYS = ("session_update",)

    session_update: Literal["tool_call_content_chunk"] = Field(default="tool_call_content_chunk", alias="sessionUpdate")
    tool_call_id: str = Field(alias="toolCallId")
    content: Json


# -- requests to the client -----------------------------------------------------------------------


class ToolCallPermissionSubject(V2Model):
    """A permission's subject: the tool call it would let run."""

    ALWAYS = ("type",)

    type: Literal["tool_call"] = "tool_call"
    tool_call: Json = Field(alias="toolCall")


class CommandPermissionSubject(V2Model):
    """A permission's subject: a command it would let run in ``cwd``."""

    ALWAYS = ("type",)

    type: Literal["command"] = "command"
    command: str
    cwd: str
    tool_call_id: str | None = Field(default=None, alias="toolCallId")
    terminal_id: str | None = Field(default=None, alias="terminalId")


class RequestPermissionRequest(V2Model):
    """``session/request_permission`` in v2: a title of its own, an optional subject and description."""

    session_id: str = Field(alias="sessionId")
    title: str
    description: str | None = None
    subject: ToolCallPermissionSubject | CommandPermissionSubject | None = None
    options: list[Json] = Field(min_length=1)
