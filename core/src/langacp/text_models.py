"""The ACP SDK's plain text models, made without validating what validation would keep as it is.

Cheap to import (the SDK is imported when a model is first made). A replay makes thousands of
``TextContentBlock`` s inside tool call content and agent message chunks; validating each costs
more than making it. :func:`tool_text_content` and :func:`agent_text_chunk` make models equal to
what the SDK's helpers build (``tool_content(text_block(text))``, ``update_agent_message_text``)
when ``text`` is exactly a ``str``, the one input validation keeps as it is, and only for SDK
classes whose fields are the ones (in the order) written here (:func:`shaped`, checked once);
otherwise they call the SDK's helpers. ``core/tests/test_replay_wire.py`` compares them with the
helpers' models over generated texts; ``langacp.compat.pydantic`` makes the instances.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = ["Never", "agent_text_chunk", "classes", "shaped", "tool_text_content"]

TEXT_SHAPE = ("annotations", "text", "field_meta", "type")
CONTENT_SHAPE = ("content", "field_meta", "type")
CHUNK_SHAPE = ("content", "message_id", "field_meta", "session_update")


class Never:
    """Stands for an SDK class whose fields are not the ones written here: no value is of it."""


def shaped(cls: type, fields: tuple[str, ...]) -> type:
    """``cls`` if its fields are ``fields``, in that order, else :class:`Never`."""
    return cls if tuple(cls.model_fields) == fields else Never  # type: ignore[attr-defined]


@cache
def classes() -> tuple[type, type, type, type]:
    """``TextContentBlock``, ``ContentToolCallContent``, ``AgentMessageChunk``, ``AgentThoughtChunk``
    (each :class:`Never` unless shaped as written here)."""
    from acp.schema import AgentMessageChunk, AgentThoughtChunk, ContentToolCallContent, TextContentBlock

    return (
        shaped(TextContentBlock, TEXT_SHAPE),
        shaped(ContentToolCallContent, CONTENT_SHAPE),
        shaped(AgentMessageChunk, CHUNK_SHAPE),
        shaped(AgentThoughtChunk, CHUNK_SHAPE),
    )


@cache
def _made() -> Callable[..., Any]:
    from langacp.compat.pydantic import made

    return made


def tool_text_content(text: str) -> Any:
    """``text`` as tool call content: equal to the SDK's ``tool_content(text_block(text))``."""
    block_type, content_type, _, _ = classes()
    if type(text) is not str or block_type is Never or content_type is Never:
        from acp import text_block, tool_content

        return tool_content(text_block(text))
    made = _made()
    block = made(block_type, {"annotations": None, "text": text, "field_meta": None, "type": "text"}, {"type", "text"})
    return made(content_type, {"content": block, "field_meta": None, "type": "content"}, {"type", "content"})


def agent_text_chunk(text: str, *, thought: bool = False) -> Any:
    """The agent's message (``thought``: thought) chunk of ``text``: equal to the SDK's
    ``update_agent_message_text(text)`` (``update_agent_thought_text``)."""
    block_type, _, message_type, thought_type = classes()
    chunk_type = thought_type if thought else message_type
    if type(text) is not str or block_type is Never or chunk_type is Never:
        from acp import update_agent_message_text, update_agent_thought_text

        return update_agent_thought_text(text) if thought else update_agent_message_text(text)
    made = _made()
    kind = "agent_thought_chunk" if thought else "agent_message_chunk"
    block = made(block_type, {"annotations": None, "text": text, "field_meta": None, "type": "text"}, {"type", "text"})
    values = {"content": block, "message_id": None, "field_meta": None, "session_update": kind}
    return made(chunk_type, values, {"session_update", "content"})
