"""What a graph compiled by ``create_agent`` depends on: the key :mod:`langacp.shared_graphs` shares it by.

The model (a string: itself; an object: its class), the system prompt, each tool's class,
name, description, argument schema, return settings and function code, each middleware's
class, name, state schema, tools, stream transformers and trace policy, the other
``create_agent`` arguments. What cannot be keyed raises :class:`NotShareable`. Nothing of
langacp is imported; LangChain only when a key is made.
"""

from __future__ import annotations

import json
import types
import weakref
from collections.abc import Hashable, Sequence
from typing import Any

__all__ = ["NotShareable", "configuration_key", "function_tool"]


class NotShareable(Exception):
    """Something given to ``create_agent`` cannot be part of a configuration key."""


def configuration_key(
    model: Any, tools: Sequence[Any], system_prompt: Any, middleware: Sequence[Any], kwargs: dict[str, Any]
) -> Hashable:
    """What a graph built from these depends on; :class:`NotShareable` if something cannot be keyed."""
    return (
        ("model", model) if isinstance(model, str) else ("model-class", type(model)),
        _hashable(system_prompt),
        tuple(_tool_key(t) for t in tools),
        tuple(_middleware_key(m) for m in middleware),
        tuple(sorted((name, _hashable(value)) for name, value in kwargs.items())),
    )


def _hashable(value: Any) -> Hashable:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return ("seq", *(_hashable(v) for v in value))
    if isinstance(value, dict):
        return ("map", *sorted((str(k), _hashable(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        raise NotShareable(f"{type(value).__name__} cannot be compared between sessions") from None
    key: Hashable = value  # a class, a checkpointer, a store: the same object for every session, or a key of its own
    return key


_FUNCTION_TOOLS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
"""A module's function passed as a tool, as the one tool ``create_agent`` would make of it."""


def function_tool(tool: Any) -> Any:
    """A module's function (no closure) as a tool made once per process; anything else as it is."""
    if not isinstance(tool, types.FunctionType) or tool.__closure__ is not None:
        return tool
    made = _FUNCTION_TOOLS.get(tool)
    if made is None:
        from langchain_core.tools import tool as make_tool

        made = _FUNCTION_TOOLS[tool] = make_tool(tool)
    return made


def _function_code(tool: Any) -> Any:
    codes = []
    for fn in (tool.func, tool.coroutine):
        fn = getattr(fn, "__func__", fn)
        if fn is not None and not isinstance(fn, types.FunctionType):
            raise NotShareable(f"tool {tool.name!r}: its function is a {type(fn).__name__}, not a function")
        codes.append(getattr(fn, "__code__", None))
    return tuple(codes)


def _tool_key(tool: Any) -> Hashable:
    from langchain_core.tools import StructuredTool

    if isinstance(tool, dict):  # a provider's built-in tool: data the model is given, never run here
        return ("builtin", json.dumps(tool, sort_keys=True, default=repr))
    if not isinstance(tool, StructuredTool):  # another tool class may hold anything: no stand-in can copy it
        raise NotShareable(f"the tool {tool!r} is not a StructuredTool (a closure, an object or a tool class)")
    schema = tool.args_schema
    if isinstance(schema, dict):
        schema_key: Hashable = json.dumps(schema, sort_keys=True, default=repr)
    elif schema is None or isinstance(schema, type):
        schema_key = schema
    else:
        raise NotShareable(f"tool {tool.name!r}: its argument schema cannot be compared")
    return (
        type(tool),
        tool.name,
        tool.description,
        schema_key,
        tool.return_direct,
        tool.response_format,
        _function_code(tool),
        _hashable(tool.extras),
    )


def _middleware_key(middleware: Any) -> Hashable:
    return (
        type(middleware),
        middleware.name,
        getattr(middleware, "state_schema", None),
        tuple(_tool_key(t) for t in getattr(middleware, "tools", None) or ()),
        _hashable(tuple(getattr(middleware, "transformers", ()) or ())),
        _hashable(getattr(middleware, "trace_policy", None)),
    )
