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


class CountingStart(CountingKinds):
    def __init__(self) -> None:
        super().__init__("edit")
        self.started = 0

    @hookimpl
    def langacp_tool_start_content(self, call: Any, session: Any) -> list[Any]:
        self.started += 1
        return ["proposed"]


def test_a_call_without_its_arguments_is_described_without_asking_for_start_content() -> None:
    plugins = Plugins()
    counting = CountingStart()
    plugins.register(counting, "counting")
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    bare = plugins.describe_tool(ToolCallInfo("call_1", "edit", {}), session, content=False)
    assert "content" not in bare and counting.started == 0
    assert plugins.describe_tool(ToolCallInfo("call_1", "edit", {"path": "x"}), session)["content"] == ["proposed"]
    assert counting.started == 1


class _Sink:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    def put(self, update: Any) -> None:
        self.sent.append(update)


def test_the_tool_guard_gets_the_turns_own_copy_of_a_call_it_described() -> None:
    from langacp.bridge.turn import TurnReporter

    plugins, counting = _plugins("read")
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    turn = TurnReporter(plugins, session, _Sink())  # type: ignore[arg-type]
    turn.announce("call_1", "lookup", None)  # a streamed call: its arguments come later
    turn.announce("call_1", "lookup", {"q": "x"})
    asked = counting.asked
    same = turn.known_call(ToolCallInfo("call_1", "lookup", {"q": "x"}))
    assert plugins.tool_kind(same, session) == "read" and counting.asked == asked  # known: not asked again
    other = ToolCallInfo("call_1", "lookup", {"q": "y"})  # other arguments: not the turn's call
    assert turn.known_call(other) is other
    unknown = ToolCallInfo("call_2", "lookup", {"q": "x"})
    assert turn.known_call(unknown) is unknown
