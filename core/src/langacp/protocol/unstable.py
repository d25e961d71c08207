"""Typed models of the unstable ACP v1 updates the SDK lacks, behind the client capability that gates them.

Checked against the official unstable schema (``@agentclientprotocol/sdk`` on npm,
``schema/v1/schema.unstable.json``) by the tests over real pipes (``tests/test_protocol_unstable_*.py``):

- subagents (``clientCapabilities.subagents``): ``subagent_update`` announcing a child session
  on its parent, ``session_message`` / ``session_message_chunk`` for what one session sends
  another, and the child's own updates sent with the child's ``sessionId`` (:class:`ForSession`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from langacp.protocol.models import ContentBlock, ProtocolUpdate, SubagentCapabilities

__all__ = [
    "ForSession",
    "SessionMessage",
    "SessionMessageChunk",
    "SubagentCapabilities",
    "SubagentUpdate",
]


class SubagentUpdate(ProtocolUpdate):
    """``subagent_update``: on the parent session, child ``sessionId`` announced (the first time) or patched.

    ``state`` is a ``StateUpdate`` object (``{"state": "running"}``, ``{"state": "idle",
    "stopReason": ...}``). Fields left ``None`` are not sent (unchanged, for the client).
    """

    session_update: Literal["subagent_update"] = Field(default="subagent_update", alias="sessionUpdate")
    session_id: str = Field(alias="sessionId")
    title: str | None = None
    description: str | None = None
    state: dict[str, Any] | None = None


class SessionMessage(ProtocolUpdate):
    """``session_message``: a message between two sessions, as the transcript of the session it is sent on shows it."""

    session_update: Literal["session_message"] = Field(default="session_message", alias="sessionUpdate")
    message_id: str = Field(alias="messageId")
    sender_session_id: str | None = Field(default=None, alias="senderSessionId")
    recipient_session_id: str | None = Field(default=None, alias="recipientSessionId")
    sender_message_id: str | None = Field(default=None, alias="senderMessageId")
    recipient_message_id: str | None = Field(default=None, alias="recipientMessageId")
    content: list[ContentBlock] | None = None


class SessionMessageChunk(ProtocolUpdate):
    """``session_message_chunk``: one content block appended to session message ``messageId``."""

    session_update: Literal["session_message_chunk"] = Field(default="session_message_chunk", alias="sessionUpdate")
    message_id: str = Field(alias="messageId")
    content: ContentBlock


@dataclass(frozen=True)
class ForSession:
    """``update`` for session ``session_id`` (a child session), queued in its parent's outbox.

    The parent's outbox keeps it in order with the parent's own updates (``subagent_update``
    first, as ACP asks); :func:`langacp.protocol.send_update` sends it with ``session_id``.
    """

    session_id: str
    update: Any
