"""A tool call's kind is asked of the plugins once per call and session, however many mappers need it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from langacp import SessionContext, ToolCallInfo, hookimpl
from langacp.plugins import Plugins


class CountingKinds:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.asked = 0

    @hookimpl
    def langacp_tool_kind(self, call: Any, session: Any) -> str:
        self.asked += 1
        return self.kind

    @hookimpl
    def langacp_tool_title(self, call: Any, session: Any) -> str:
        # A mapper that needs the kind asks for it, as langacp-tools does.
        return f"{session.plugins.tool_kind(call, session)} {call.name}"


def _plugins(kind: str) -> tuple[Plugins, CountingKinds]:
    plugins = Plugins()
    counting = CountingKinds(kind)
    plugins.register(counting, "counting")
    return plugins, counting


def test_describing_a_call_and_its_result_asks_its_kind_once() -> None:
    plugins, counting = _plugins("read")
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    call = ToolCallInfo("call_1", "lookup", {"q": "x"})
    described = plugins.describe_tool(call, session)
    plugins.tool_result_content(call, ToolMessage("found", tool_call_id="call_1"), session)
    assert described["kind"] == "read" and described["title"] == "read lookup"
    assert plugins.tool_kind(call, session) == "read"
    assert counting.asked == 1


def test_another_call_session_or_plugin_set_asks_again() -> None:
    plugins, counting = _plugins("read")
    other_plugins, other = _plugins("edit")
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    other_session = SessionContext(session_id="t", cwd="/tmp", plugins=plugins)
    call = ToolCallInfo("call_1", "lookup", {"q": "x"})
    plugins.tool_kind(call, session)
    plugins.tool_kind(ToolCallInfo("call_1", "lookup", {"q": "x"}), session)  # an equal call, another object
    plugins.tool_kind(call, other_session)
    assert counting.asked == 3
    assert other_plugins.tool_kind(call, session) == "edit" and other.asked == 1
