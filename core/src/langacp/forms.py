"""ACP's restricted form schema (``elicitation/create``): checking a schema, and an answer against it.

A form is a flat JSON object schema whose properties are each a string (optionally an enum,
or ``oneOf`` of ``{"const", "title"}``), a number, an integer, a boolean, or an array of strings
picked from an enum (multi-select). Whatever a client answers is checked against the schema that
was sent before anything sees it: no field the schema does not name, no value of another type,
no option that was not offered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["FormError", "check_form_answer", "check_form_schema", "form_options"]

_TYPES = ("string", "number", "integer", "boolean", "array")


class FormError(ValueError):
    """A form schema outside ACP's restricted one, or an answer that does not match its schema."""


def form_options(prop: Mapping[str, Any]) -> list[str]:
    """The values a string (or multi-select) property offers: its ``enum``, or its ``oneOf`` consts."""
    source = prop.get("items", prop) if prop.get("type") == "array" else prop
    if not isinstance(source, Mapping):
        return []
    if isinstance(source.get("enum"), list):
        return [str(v) for v in source["enum"]]
    choices = source.get("oneOf") or source.get("anyOf")
    if isinstance(choices, list):
        return [str(c["const"]) for c in choices if isinstance(c, Mapping) and "const" in c]
    return []


def check_form_schema(schema: Any) -> dict[str, Any]:
    """``schema`` as a form schema (a copy), or :class:`FormError` saying what falls outside ACP's restricted one."""
    if not isinstance(schema, Mapping):
        raise FormError(f"a form schema is a JSON object, not {type(schema).__name__}")
    if schema.get("type", "object") != "object":
        raise FormError(f"a form schema is of type object, not {schema.get('type')!r}")
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise FormError("a form schema's properties are a JSON object")
    for name, prop in properties.items():
        if not isinstance(name, str) or not isinstance(prop, Mapping):
            raise FormError(f"form field {name!r} is not a property schema")
        kind = prop.get("type")
        if kind not in _TYPES:
            raise FormError(f"form field {name!r} has type {kind!r}: a form takes only {', '.join(_TYPES)}")
        if kind == "array" and not form_options(prop):
            raise FormError(f"form field {name!r} is a list: a form's lists pick from options (items.enum)")
    required = schema.get("required") or []
    if not isinstance(required, list) or any(r not in properties for r in required):
        raise FormError("a form schema's required names only its own fields")
    return {**dict(schema), "type": "object", "properties": {k: dict(v) for k, v in properties.items()}}


def check_form_answer(schema: Mapping[str, Any], content: Any) -> dict[str, Any]:
    """The client's ``content`` for a form of ``schema``, checked: :class:`FormError` listing every problem.

    An integer sent as ``3.0`` comes back as ``3``; nothing else is changed.
    """
    if content is None:
        content = {}
    if not isinstance(content, Mapping):
        raise FormError(f"the answer is not a JSON object but {type(content).__name__}")
    properties: Mapping[str, Any] = schema.get("properties") or {}
    problems: list[str] = []
    answer: dict[str, Any] = {}
    for name, value in content.items():
        prop = properties.get(name)
        if prop is None:
            problems.append(f"{name!r} is not a field of the form")
            continue
        checked, problem = _check_value(prop, value)
        if problem is not None:
            problems.append(f"{name!r} {problem}")
        else:
            answer[name] = checked
    for name in schema.get("required") or []:
        if name not in content:
            problems.append(f"{name!r} is required")
    if problems:
        raise FormError("the answer does not match the form: " + "; ".join(problems))
    return answer


def _check_value(prop: Mapping[str, Any], value: Any) -> tuple[Any, str | None]:  # noqa: C901 - one case per type
    kind = prop.get("type")
    if kind == "string":
        if not isinstance(value, str):
            return None, f"must be a string, not {_json_type(value)}"
        options = form_options(prop)
        if options and value not in options:
            return None, f"must be one of {options}, not {value!r}"
        if isinstance(prop.get("minLength"), int) and len(value) < prop["minLength"]:
            return None, f"must be at least {prop['minLength']} characters"
        if isinstance(prop.get("maxLength"), int) and len(value) > prop["maxLength"]:
            return None, f"must be at most {prop['maxLength']} characters"
        if isinstance(prop.get("pattern"), str) and re.search(prop["pattern"], value) is None:
            return None, f"must match {prop['pattern']!r}"
        return value, None
    if kind == "boolean":
        return (value, None) if isinstance(value, bool) else (None, f"must be true or false, not {_json_type(value)}")
    if kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None, f"must be a {kind}, not {_json_type(value)}"
        if kind == "integer":
            if isinstance(value, float) and not value.is_integer():
                return None, f"must be an integer, not {value!r}"
            value = int(value)
        if isinstance(prop.get("minimum"), (int, float)) and value < prop["minimum"]:
            return None, f"must be at least {prop['minimum']}"
        if isinstance(prop.get("maximum"), (int, float)) and value > prop["maximum"]:
            return None, f"must be at most {prop['maximum']}"
        return value, None
    if kind == "array":
        options = form_options(prop)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return None, f"must be a list of strings, not {_json_type(value)}"
        wrong = [v for v in value if v not in options]
        if wrong:
            return None, f"must pick from {options}, not {wrong}"
        if isinstance(prop.get("minItems"), int) and len(value) < prop["minItems"]:
            return None, f"must pick at least {prop['minItems']}"
        if isinstance(prop.get("maxItems"), int) and len(value) > prop["maxItems"]:
            return None, f"must pick at most {prop['maxItems']}"
        return list(value), None
    return None, f"has a type the form does not take ({kind!r})"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
