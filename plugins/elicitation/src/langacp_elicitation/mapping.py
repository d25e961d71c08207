"""An interrupt's value → the :class:`~langacp.api.Question` asked, and the value the graph resumes with.

* a string: the string, one text field; resumed with the text;
* a dict with ``question`` (or ``message`` / ``prompt`` / ``query`` / ``text`` / ``description`` /
  ``title``) and ``options`` (or ``choices`` / ``enum``; an option may be ``{"label", "value"}``):
  one choice field, resumed with the chosen option's value; without options one text field;
* a JSON schema (``{"type": "object", "properties": ...}``), a dict with ``schema`` (a JSON schema
  or a pydantic model class) and a message, or a pydantic model instance (its values prefilled):
  its fields, when each fits ACP's restricted form; resumed with a dict of the fields;
* an Agent Inbox ``HumanInterrupt`` (``action_request``, ``config``, ``description``): a choice of
  the responses its config allows and a text field; resumed with ``{"type", "args"}``
  (in a list when the interrupt's value was a list);
* anything else: its JSON as the message, one text field; resumed with the text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from langacp.api import FormError, Question, check_form_schema

__all__ = ["is_permission_request", "question_for"]

_QUESTION_KEYS = ("question", "message", "prompt", "query", "text", "description", "title")
_OPTION_KEYS = ("options", "choices", "enum")
_SCHEMA_KEYS = ("schema", "requested_schema", "requestedSchema", "response_schema")
ANSWER = "answer"
"""The field of a one-field question."""


def is_permission_request(value: Any) -> bool:
    """A ``HumanInTheLoopMiddleware`` request (batched or per call): langacp-permissions answers it."""
    if not isinstance(value, Mapping):
        return False
    return isinstance(value.get("action_requests"), list) or (
        value.get("type") == "tool_approval" and isinstance(value.get("name"), str)
    )


def question_for(value: Any) -> Question:
    """The question ``value`` asks (see the table above); never fails: an unknown shape is shown as JSON."""
    found: Question | None = None
    if isinstance(value, str):
        found = _text_question(value)
    elif _is_model_class(value):
        found = _schema_question(value.model_json_schema(), None)
    elif _is_model_class(type(value)) and callable(getattr(value, "model_dump", None)):
        found = _schema_question(type(value).model_json_schema(), None, defaults=value.model_dump(mode="json"))
    elif isinstance(value, list) and len(value) == 1 and _is_inbox_request(value[0]):
        found = _inbox_question(value[0], listed=True)
    elif _is_inbox_request(value):
        found = _inbox_question(value, listed=False)
    elif isinstance(value, Mapping):
        found = _dict_question(value)
    return found or _json_question(value)


def _text_question(message: str, *, title: str = "Answer") -> Question:
    schema = {"type": "object", "properties": {ANSWER: {"type": "string", "title": title}}, "required": [ANSWER]}
    return Question(message, schema, _field(ANSWER))


def _field(name: str, values: Mapping[str, Any] | None = None) -> Callable[[dict[str, Any]], Any]:
    def resume(content: dict[str, Any]) -> Any:
        chosen = content.get(name)
        return values.get(chosen, chosen) if values is not None and isinstance(chosen, str) else chosen

    return resume


def _whole(content: dict[str, Any]) -> dict[str, Any]:
    return dict(content)


def _json_question(value: Any) -> Question:
    try:
        shown = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        shown = repr(value)
    return _text_question(f"The agent asks:\n{shown}")


def _is_model_class(value: Any) -> bool:
    return isinstance(value, type) and callable(getattr(value, "model_json_schema", None))


def _dict_question(value: Mapping[str, Any]) -> Question | None:
    if value.get("type") == "object" and isinstance(value.get("properties"), Mapping):
        return _schema_question(value, None)
    message = next((value[k] for k in _QUESTION_KEYS if isinstance(value.get(k), str) and value[k].strip()), None)
    schema = next((value[k] for k in _SCHEMA_KEYS if value.get(k) is not None), None)
    if schema is not None:
        if _is_model_class(schema):
            schema = schema.model_json_schema()
        return _schema_question(schema, message) if isinstance(schema, Mapping) else None
    if message is None:
        return None
    options = next((value[k] for k in _OPTION_KEYS if isinstance(value.get(k), (list, tuple)) and value[k]), None)
    if options is None:
        return _text_question(message)
    return _choice_question(message, list(options))


def _choice_question(message: str, options: list[Any]) -> Question:
    """One choice field; each option's value (any JSON) is what the graph gets back."""
    choices: list[dict[str, str]] = []
    values: dict[str, Any] = {}
    for index, option in enumerate(options):
        label, value = _label_and_value(option)
        const = value if isinstance(value, str) and value not in values else str(index + 1)
        values[const] = value
        choices.append({"const": const, "title": label})
    prop: dict[str, Any] = {"type": "string", "title": "Answer"}
    if all(c["const"] == c["title"] for c in choices):
        prop["enum"] = [c["const"] for c in choices]
    else:
        prop["oneOf"] = choices
    schema = {"type": "object", "properties": {ANSWER: prop}, "required": [ANSWER]}
    return Question(message, schema, _field(ANSWER, values))


def _label_and_value(option: Any) -> tuple[str, Any]:
    if isinstance(option, Mapping):
        value = next((option[k] for k in ("value", "const", "id") if k in option), None)
        label = next((option[k] for k in ("label", "title", "name", "text") if isinstance(option.get(k), str)), None)
        if value is None:
            value = label
        return (label if label is not None else _shown(value)), value
    return _shown(option), option


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _schema_question(
    schema: Mapping[str, Any], message: str | None, defaults: Mapping[str, Any] | None = None
) -> Question | None:
    """A form of a JSON schema's fields, when each one fits ACP's restricted schema (``$ref`` s, optional
    fields and enums resolved as pydantic writes them); ``None`` otherwise. ``defaults`` prefill fields."""
    definitions = schema.get("$defs") or schema.get("definitions") or {}
    properties: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        flat = _flat_property(prop, definitions)
        if flat is None:
            return None
        if defaults is not None and defaults.get(name) is not None:
            flat["default"] = defaults[name]
        properties[name] = flat
    required = [name for name in schema.get("required") or [] if name in properties]
    form: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        form["required"] = required
    try:
        form = check_form_schema(form)
    except FormError:
        return None
    text = message or schema.get("description") or schema.get("title") or "Please fill in:"
    return Question(str(text), form, _whole)


_KEPT = ("title", "description", "default", "minimum", "maximum", "minLength", "maxLength", "pattern", "format")


def _flat_property(prop: Any, definitions: Mapping[str, Any]) -> dict[str, Any] | None:
    prop = _resolved(prop, definitions)
    if not isinstance(prop, Mapping):
        return None
    kind = prop.get("type")
    flat = {key: prop[key] for key in _KEPT if prop.get(key) is not None}
    if "const" in prop and kind in (None, "string"):
        return {**flat, "type": "string", "enum": [prop["const"]]}
    if isinstance(prop.get("enum"), list):
        if all(isinstance(v, str) for v in prop["enum"]):
            return {**flat, "type": "string", "enum": list(prop["enum"])}
        return None
    if kind in ("string", "number", "integer", "boolean"):
        return {**flat, "type": kind}
    if kind == "array":
        items = _resolved(prop.get("items"), definitions)
        if isinstance(items, Mapping) and isinstance(items.get("enum"), list):
            return {**flat, "type": "array", "items": {"type": "string", "enum": [str(v) for v in items["enum"]]}}
    return None


def _resolved(prop: Any, definitions: Mapping[str, Any]) -> Any:
    """``prop`` with a ``$ref`` (or a one-item ``allOf``) followed and ``Optional[X]`` (``anyOf`` of X and null)
    read as X; the outer property's title, description and default kept."""
    if not isinstance(prop, Mapping):
        return prop
    outer = {key: prop[key] for key in ("title", "description", "default") if key in prop}
    inner: Any = prop
    if isinstance(prop.get("anyOf"), list):
        kinds = [p for p in prop["anyOf"] if not (isinstance(p, Mapping) and p.get("type") == "null")]
        if len(kinds) != 1:
            return None
        inner = kinds[0]
    elif isinstance(prop.get("allOf"), list) and len(prop["allOf"]) == 1:
        inner = prop["allOf"][0]
    if isinstance(inner, Mapping) and isinstance(inner.get("$ref"), str):
        name = inner["$ref"].rsplit("/", 1)[-1]
        inner = definitions.get(name)
    if not isinstance(inner, Mapping):
        return None
    if inner is prop:
        return prop
    return {**{k: v for k, v in inner.items() if k != "title" or "title" not in outer}, **outer}


def _is_inbox_request(value: Any) -> bool:
    """LangGraph's Agent Inbox ``HumanInterrupt`` (``langgraph.prebuilt.interrupt``): an action to review."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("action_request"), Mapping)
        and isinstance(value.get("config"), Mapping)
    )


_INBOX_RESPONSES = {
    "allow_accept": "accept",
    "allow_edit": "edit",
    "allow_respond": "response",
    "allow_ignore": "ignore",
}


def _inbox_question(value: Mapping[str, Any], *, listed: bool) -> Question:
    """A review of the action: a choice of the responses its ``config`` allows, and a text field for a response
    (or, for ``edit``, the action's arguments as JSON)."""
    action = value["action_request"]
    config = value["config"]
    allowed = [kind for flag, kind in _INBOX_RESPONSES.items() if config.get(flag)] or ["ignore"]
    args = action.get("args")
    shown = json.dumps(args, indent=2, ensure_ascii=False, default=str)
    message = str(value.get("description") or f"Review {action.get('action', 'the action')}:\n{shown}")
    properties: dict[str, Any] = {"response": {"type": "string", "title": "Response", "enum": allowed}}
    if "response" in allowed or "edit" in allowed:
        properties["text"] = {
            "type": "string",
            "title": "Your answer, or the edited arguments (JSON)",
            "description": "For respond: your message. For edit: the arguments as JSON.",
            "default": shown if "edit" in allowed else "",
        }
    schema = {"type": "object", "properties": properties, "required": ["response"]}

    def resume(content: dict[str, Any]) -> Any:
        kind = content.get("response")
        text = content.get("text")
        answer: dict[str, Any] = {"type": kind, "args": None}
        if kind == "response":
            answer["args"] = text or ""
        elif kind == "edit":
            try:
                edited = json.loads(text) if isinstance(text, str) and text.strip() else args
            except ValueError:
                raise FormError("the edited arguments are not JSON") from None
            answer["args"] = {"action": action.get("action"), "args": edited}
        return [answer] if listed else answer

    return Question(message, schema, resume)
