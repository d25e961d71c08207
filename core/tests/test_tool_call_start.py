"""``langacp.protocol.start_tool_call`` builds what the SDK's helper builds, with ``name``, validating once."""

from __future__ import annotations

from typing import Any

import pytest
from acp import start_tool_call as sdk_start_tool_call
from acp import text_block, tool_content, tool_diff_content
from acp.schema import ToolCallLocation

from langacp.protocol import NamedToolCallStart, start_tool_call, update_json

CASES: list[dict[str, Any]] = [
    {},
    {"kind": "read", "status": "completed", "raw_input": {"path": "a"}, "raw_output": "text"},
    {"content": (tool_content(text_block("hi")),), "locations": [ToolCallLocation(path="/p/a.py", line=3)]},
    {"content": [{"type": "content", "content": {"type": "text", "text": "as a dict"}}], "locations": [{"path": "/x"}]},
    {"content": [tool_diff_content("/p/b.py", "new", "old")], "kind": "edit", "status": "failed", "raw_output": [1]},
    {"content": None, "locations": None, "kind": None},
    # what the schema does not accept is salvaged (or refused) alike
    {"kind": "no such kind", "status": "later", "locations": [{"line": 2}], "content": [{"type": "nope"}]},
]


@pytest.mark.parametrize("fields", CASES)
def test_the_same_update_as_the_sdk_helper_then_the_name(fields: dict[str, Any]) -> None:
    def before() -> NamedToolCallStart:
        return NamedToolCallStart(**dict(sdk_start_tool_call("call_1", "Read a.py", **fields)), name="read_file")

    try:
        expected = before()
    except ValueError as exc:
        with pytest.raises(type(exc)):
            start_tool_call("call_1", "Read a.py", name="read_file", **fields)
        return
    after = start_tool_call("call_1", "Read a.py", name="read_file", **fields)
    assert type(after) is NamedToolCallStart
    assert update_json(after) == update_json(expected)
    assert after.model_dump() == expected.model_dump()
