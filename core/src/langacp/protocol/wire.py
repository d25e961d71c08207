"""Session updates built in their wire form (the JSON of ``params.update``) without a pydantic model.

A replay sends hundreds of updates whose every field langacp already holds as checked values (a
replayed user's text, a tool call's id, title, kind and the mappers' content models). Building
the SDK's model validates them again and dumping it walks them again; :func:`tool_call_start` and
:func:`user_text_chunk` write the same JSON directly when their inputs are of the exact types
that validation would keep as they are, and build the validated model otherwise. Whatever cannot
take the JSON as it is (a v2 connection's mapping, a client without the SDK's connection) gets
the model, built then, as it was before (:meth:`WireUpdate.model`).

Sound by construction, assuming only pydantic's documented behaviour:

- a model instance of the exact class a field declares is kept as it is (``revalidate_instances``
  is ``"never"`` by default), so the validated update would hold the very content and location
  objects given here, and dumps each with its own serializer and the same options; a subclass,
  a dict or anything else goes through validation (which may convert or drop it);
- ``rawInput`` / ``rawOutput`` are ``Any`` fields: dumped by pydantic's serializer for ``Any``
  with the model's config (``NaN`` as ``null``, …) and the options the update is dumped with;
  whatever it cannot dump (a lone surrogate in a key) makes the model, which fails as before; a
  ``str``, ``int`` or ``bool`` (exactly), or a dict of those and ``None`` by ASCII ``str`` keys, is what
  that serializer gives back unchanged, so it is used as it is (a dict copied);
- a title, id or name not exactly a ``str``, a kind or status outside the schema's values (which
  validation would replace by ``None``) go through validation;
- keys in the order of the models' fields, ``None`` left out (``exclude_none``).

``core/tests/test_replay_wire.py`` compares both ways over generated inputs, odd ones included.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from langacp.text_models import Never, classes

__all__ = ["WireUpdate", "chunk_with_id", "tool_call_start", "user_text_chunk"]

_ALIASES = {"tool_call_id": "toolCallId", "message_id": "messageId", "session_update": "sessionUpdate"}


class WireUpdate:
    """A ``session/update``'s ``update`` already as JSON (``data``), and how to build its model
    (``build(*args)``: a function and its arguments, not a closure, so that an update holds few objects).

    Exposes what the outbox and the tool call ids read of an update (``session_update``,
    ``tool_call_id``, ``message_id``, ``model_copy``); :meth:`model` is the validated model the
    data is the dump of.
    """

    __slots__ = ("_args", "_build", "data")

    def __init__(self, data: dict[str, Any], build: Callable[..., Any], args: tuple[Any, ...] = ()) -> None:
        self.data = data
        self._build = build
        self._args = args

    @property
    def session_update(self) -> Any:
        return self.data.get("sessionUpdate")

    @property
    def tool_call_id(self) -> Any:
        return self.data.get("toolCallId")

    @property
    def message_id(self) -> Any:
        return self.data.get("messageId")

    def model(self) -> Any:
        """The update's model, validated as when it was built without this module."""
        return self._build(*self._args)

    def model_copy(self, *, update: dict[str, Any]) -> Any:
        """A copy with ``update``'s fields changed (an id): a wire update, or the model's copy for other fields."""
        if update.keys() <= {"tool_call_id", "message_id"} and all(type(v) is str for v in update.values()):
            present = {_ALIASES[key]: value for key, value in update.items() if _ALIASES[key] in self.data}
            if len(present) == len(update):
                return WireUpdate({**self.data, **present}, _model_copy, (self, update))
        return self.model().model_copy(update=update)

    def __repr__(self) -> str:
        return f"WireUpdate({self.data!r})"


def _model_copy(model: Any, update: dict[str, Any]) -> Any:
    """``model``'s model (a wire update's, or a model itself) copied with ``update``."""
    built = model.model() if type(model) is WireUpdate else model
    return built.model_copy(update=update)


def _user_chunk(text: str, message_id: str) -> Any:
    from acp import text_block
    from acp.schema import UserMessageChunk

    return UserMessageChunk(session_update="user_message_chunk", content=text_block(text), message_id=message_id)


def user_text_chunk(text: str, message_id: str) -> Any:
    """The ``user_message_chunk`` of a replayed user's ``text`` (a ``str``), as ``UserMessageChunk`` dumps it."""
    if type(text) is not str or type(message_id) is not str:
        return _user_chunk(text, message_id)
    data = {"content": {"text": text, "type": "text"}, "messageId": message_id, "sessionUpdate": "user_message_chunk"}
    return WireUpdate(data, _user_chunk, (text, message_id))


_Start = tuple[str, str, str | None, Any, Any, list[Any] | None, list[Any] | None, Any, Any]
"""A tool call start's fields, :func:`tool_call_start`'s arguments in its order (``tool_call_id``, ``title``,
``name``, ``kind``, ``status``, ``content``, ``locations``, ``raw_input``, ``raw_output``): a plain tuple,
as cheap to make as the arguments are to pass."""


def _start(fields: _Start) -> Any:
    from langacp.protocol import start_tool_call

    tool_call_id, title, name, kind, status, content, locations, raw_input, raw_output = fields
    return start_tool_call(
        tool_call_id,
        title,
        name=name,
        kind=kind,
        status=status,
        content=content,
        locations=locations,
        raw_input=raw_input,
        raw_output=raw_output,
    )


def tool_call_start(
    tool_call_id: str,
    title: str,
    *,
    name: str | None,
    kind: Any,
    status: Any,
    content: list[Any] | None,
    locations: list[Any] | None,
    raw_input: Any,
    raw_output: Any,
) -> Any:
    """:func:`langacp.protocol.start_tool_call` with these fields: its JSON when the inputs allow (see the module)."""
    fields: _Start = (tool_call_id, title, name, kind, status, content, locations, raw_input, raw_output)
    kinds, statuses, content_types, location_type, _ = _schema()
    if (
        type(tool_call_id) is not str
        or type(title) is not str
        or (name is not None and type(name) is not str)
        or (kind is not None and (type(kind) is not str or kind not in kinds))
        or (status is not None and (type(status) is not str or status not in statuses))
        or (content is not None and (type(content) is not list or not all(_exact(c, content_types) for c in content)))
        or (
            locations is not None
            and (type(locations) is not list or any(type(x) is not location_type for x in locations))
        )
    ):
        return _start(fields)
    try:
        data = _start_json(fields)
    except Exception:  # noqa: BLE001 - what cannot be dumped (a lone surrogate in a key): the model, as before
        return _start(fields)
    return WireUpdate(data, _start, (fields,))


def _start_json(fields: _Start) -> dict[str, Any]:
    tool_call_id, title, name, kind, status, content, locations, raw_input, raw_output = fields
    any_json = _any_json()
    data: dict[str, Any] = {"toolCallId": tool_call_id, "title": title}
    if kind is not None:
        data["kind"] = kind
    if status is not None:
        data["status"] = status
    if content is not None:
        data["content"] = [_text_content_json(c) or c.model_dump(**_DUMP) for c in content]
    if locations is not None:
        data["locations"] = [x.model_dump(**_DUMP) for x in locations]
    if raw_input is not None:
        data["rawInput"] = _flat_json(raw_input) or any_json(raw_input, **_DUMP)
    if raw_output is not None:
        data["rawOutput"] = _flat_json(raw_output) or any_json(raw_output, **_DUMP)
    data["sessionUpdate"] = "tool_call"
    if name is not None:
        data["name"] = name
    return data


_DUMP: dict[str, Any] = {"mode": "json", "by_alias": True, "exclude_none": True}


def _plain_text(block: Any) -> str | None:
    """The text of ``block`` when it is exactly a ``TextContentBlock`` holding only its text, else ``None``.

    Its dump is then ``{"text": text, "type": "text"}``: no annotations, no ``_meta``, its ``type``
    the one its class declares, its text exactly a ``str`` (a model's fields can be reassigned
    without validation, so each is looked at).
    """
    if type(block) is not _text_block_type():
        return None
    fields = block.__dict__
    text = fields.get("text")
    if type(text) is not str or fields.get("type") != "text" or fields.get("annotations") is not None:
        return None
    if fields.get("field_meta") is not None or len(fields) != 4:
        return None
    return text


def _text_content_json(item: Any) -> dict[str, Any] | None:
    """``item``'s dump when it is exactly a ``ContentToolCallContent`` of a plain text block (else ``None``)."""
    if type(item) is not _schema()[4]:
        return None
    fields = item.__dict__
    if fields.get("type") != "content" or fields.get("field_meta") is not None or len(fields) != 3:
        return None
    text = _plain_text(fields.get("content"))
    return None if text is None else {"content": {"text": text, "type": "text"}, "type": "content"}


_CHUNK_KINDS = {"agent_message_chunk": "", "agent_thought_chunk": "/thought"}


def chunk_with_id(update: Any, message_id: str) -> Any:
    """A replayed message chunk given ``message_id`` as the outbox gives it (``with_message_id``): its JSON
    when ``update`` is exactly an SDK agent message or thought chunk of a plain text without an id, else
    ``update`` as it is (the outbox then copies it with the id).
    """
    kinds = _chunk_types()
    kind = kinds.get(type(update))
    if kind is None or type(message_id) is not str:
        return update
    fields = update.__dict__
    if fields.get("session_update") != kind or fields.get("message_id") is not None:
        return update
    if fields.get("field_meta") is not None or len(fields) != 4:
        return update
    text = _plain_text(fields.get("content"))
    if text is None:
        return update
    named = message_id + _CHUNK_KINDS[kind]
    data = {"content": {"text": text, "type": "text"}, "messageId": named, "sessionUpdate": kind}
    return WireUpdate(data, _model_copy, (update, {"message_id": named}))


_CHUNK_KINDS_BY_TYPE: dict[type, str] = {}


def _chunk_types() -> dict[type, str]:
    """The agent's message and thought chunk classes (those shaped as :func:`chunk_with_id` writes them)."""
    if not _CHUNK_KINDS_BY_TYPE:
        _, _, message_type, thought_type = classes()
        _CHUNK_KINDS_BY_TYPE.update({message_type: "agent_message_chunk", thought_type: "agent_thought_chunk"})
        _CHUNK_KINDS_BY_TYPE.pop(Never, None)
    return _CHUNK_KINDS_BY_TYPE


def _text_block_type() -> type:
    return classes()[0]


_SCALARS = frozenset({str, int, bool, type(None)})
"""Exact types pydantic's serializer for ``Any`` dumps as they are (``mode="json"``): no float (``NaN``)."""


def _flat_json(value: Any) -> Any:
    """``value``'s dump by pydantic's serializer for ``Any`` when it is a non-empty scalar of an exact
    :data:`_SCALARS` type or a dict of such values by exact ``str`` ASCII keys (a fresh dict, as the
    dump is; the serializer refuses a key with a lone surrogate), else ``None`` (the serializer's job)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool:
        return value if value else None  # "", 0, False: not worth telling apart from "no answer"
    if kind is dict and all(type(k) is str and k.isascii() and type(v) in _SCALARS for k, v in value.items()):
        return dict(value) if value else None
    return None


def _exact(item: Any, types: dict[type, str]) -> bool:
    """``item`` is exactly one of the content classes, its ``type`` the one its class declares."""
    expected = types.get(type(item))
    return expected is not None and getattr(item, "type", None) == expected


@cache
def _any_json() -> Callable[..., Any]:
    """Dumps a value as the tool call model dumps its ``Any`` fields: pydantic's serializer, the model's config."""
    from pydantic import TypeAdapter

    from langacp.protocol import NamedToolCallStart

    return TypeAdapter(Any, config=NamedToolCallStart.model_config).dump_python


@cache
def _schema() -> tuple[frozenset[str], frozenset[str], dict[type, str], type, type]:
    """The tool call's kinds, statuses, content classes (with their ``type``), location class and text
    content class, read from the SDK."""
    from acp.schema import ToolCallLocation, ToolCallStart

    fields = ToolCallStart.model_fields

    def literals(field: str) -> frozenset[str]:
        found: set[str] = set()
        stack = [fields[field].annotation]
        while stack:
            annotation = stack.pop()
            if typing.get_origin(annotation) is typing.Literal:
                found.update(a for a in typing.get_args(annotation) if isinstance(a, str))
            else:
                stack.extend(typing.get_args(annotation))
        return frozenset(found)

    content_types: dict[type, str] = {}
    stack = [fields["content"].annotation]
    while stack:
        annotation = stack.pop()
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            literal = typing.get_args(annotation.model_fields["type"].annotation)
            if len(literal) == 1 and isinstance(literal[0], str):
                content_types[annotation] = literal[0]
        else:
            stack.extend(typing.get_args(annotation))
    return literals("kind"), literals("status"), content_types, ToolCallLocation, classes()[1]
