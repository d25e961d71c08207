"""``session_tool``: a session's copy of a plugin's tool template, smaller than ``model_copy``, its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.tools import StructuredTool

from langacp.api import CHECK_KEY, session_tool


async def _hello(name: str) -> str:
    """Greet someone."""
    return name


def _template() -> StructuredTool:
    made = StructuredTool.from_function(coroutine=_hello, name="hello", handle_tool_error=True)
    return made.model_copy(update={"coroutine": None})


def test_each_sessions_copy_runs_its_own_function_and_keeps_its_own_values() -> None:
    template = _template()
    said: dict[str, list[str]] = {"a": [], "b": []}

    def for_session(sid: str) -> Any:
        async def run(name: str) -> str:
            said[sid].append(name)
            return f"{sid}: {name}"

        return session_tool(template, coroutine=run, metadata={CHECK_KEY: lambda args: None, "sid": sid})

    a, b = for_session("a"), for_session("b")
    assert asyncio.run(a.ainvoke({"name": "x"})) == "a: x"
    assert asyncio.run(b.ainvoke({"name": "y"})) == "b: y"
    assert said == {"a": ["x"], "b": ["y"]}
    assert a.metadata is not None and b.metadata is not None
    assert (a.metadata["sid"], b.metadata["sid"], template.metadata) == ("a", "b", None)
    assert template.coroutine is None
    # What a copy shares with the template is what model_copy shares: the same name, schema, settings.
    for field in ("name", "description", "args_schema", "handle_tool_error", "response_format"):
        assert getattr(a, field) is getattr(template, field)

    # Setting a field on one session's tool changes nothing of another's, nor the shared set of names.
    shared = a.model_fields_set
    before = set(shared)
    a.metadata = {"changed": True}
    a.description = "changed"
    assert b.metadata["sid"] == "b" and b.description == template.description
    assert a.model_fields_set is b.model_fields_set is shared and shared == before == set(StructuredTool.model_fields)


def test_it_is_smaller_than_a_model_copy() -> None:
    import tracemalloc

    template = _template()

    def per_copy(make: Any) -> float:
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            copies = [make() for _ in range(100)]
            size = (tracemalloc.get_traced_memory()[0] - start) / len(copies)
        finally:
            tracemalloc.stop()
        return size

    small = per_copy(lambda: session_tool(template, coroutine=_hello))
    plain = per_copy(lambda: template.model_copy(update={"coroutine": _hello}))
    assert small < plain


@pytest.mark.parametrize("update", [{"coroutine": _hello, "not_a_field": 1}])
def test_anything_but_fields_gets_an_ordinary_copy(update: dict[str, Any]) -> None:
    template = _template()
    copied = session_tool(template, **update)
    assert copied.model_fields_set is not template.model_fields_set
    assert copied.model_fields_set is not session_tool(template, coroutine=_hello).model_fields_set


def test_a_tool_class_with_extra_fields_gets_an_ordinary_copy() -> None:
    from pydantic import ConfigDict

    class Loose(StructuredTool):
        model_config = ConfigDict(extra="allow")

    template = Loose(name="loose", description="d", args_schema=None, coroutine=None)
    one, two = session_tool(template, coroutine=_hello), session_tool(template, coroutine=_hello)
    assert one.model_fields_set is not two.model_fields_set  # an extra field set on one must not reach the other
