"""The facade calls hook implementations itself: pluggy's order, firstresult and collectors, kept."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from langacp import hookimpl
from langacp.plugins import Plugins
from langacp.types import SessionContext, ToolCallInfo

CALL = ToolCallInfo.from_tool_call({"name": "add", "args": {"a": 1}, "id": "c1", "type": "tool_call"})


def _session(plugins: Plugins) -> SessionContext:
    return SessionContext(session_id="s", cwd="/tmp", plugins=plugins)


class Named:
    """Titles ``call.name`` with a prefix; ``None`` for other tools (takes only ``call``)."""

    def __init__(self, prefix: str, tool: str = "add") -> None:
        self.prefix, self.tool, self.calls = prefix, tool, 0

    @hookimpl
    def langacp_tool_title(self, call: ToolCallInfo) -> str | None:
        self.calls += 1
        return f"{self.prefix} {call.name}" if call.name == self.tool else None


class Early:
    @hookimpl(tryfirst=True)
    def langacp_tool_title(self, session: SessionContext, call: ToolCallInfo) -> str | None:
        return f"early {call.name} in {session.session_id}" if call.args.get("early") else None


class Updates:
    def __init__(self, *updates: str) -> None:
        self.updates = list(updates)

    @hookimpl
    def langacp_tool_updates(self, call: ToolCallInfo, result: Any) -> list[str]:
        return [f"{u}:{result}" for u in self.updates]


class Wrapping:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    @hookimpl(wrapper=True)
    def langacp_tool_title(self, call: ToolCallInfo) -> Generator[None, str, str]:
        title = yield
        self.seen.append(title)
        return f"[{title}]"


def test_firstresult_order_arguments_and_the_core_default() -> None:
    plugins = Plugins()
    session = _session(plugins)
    assert plugins.tool_title(CALL, session) == "add"  # the core's default, last
    first, second = Named("first"), Named("second", tool="other")
    plugins.register(second, "b-second")
    plugins.register(first, "a-first")  # registered later: called first among plain ones
    assert plugins.tool_title(CALL, session) == "first add"
    assert first.calls == 1 and second.calls == 0
    plugins.register(Early(), "early")
    early_call = ToolCallInfo.from_tool_call({"name": "add", "args": {"early": 1}, "id": "c2", "type": "tool_call"})
    assert plugins.tool_title(early_call, session) == "early add in s"  # tryfirst, with both arguments in order
    assert plugins.tool_title(CALL, session) == "first add"  # Early said None: the next one answers
    assert plugins.tool_title(CALL, session) == plugins.pm.hook.langacp_tool_title(call=CALL, session=session)


def test_a_plugin_registered_after_a_call_is_called() -> None:
    plugins = Plugins()
    session = _session(plugins)
    assert plugins.tool_updates(CALL, "r", session) == []
    plugins.register(Updates("a", "b"), "one")
    assert plugins.tool_updates(CALL, "r", session) == ["a:r", "b:r"]
    plugins.register(Updates("c"), "two")
    assert sorted(plugins.tool_updates(CALL, "r", session)) == ["a:r", "b:r", "c:r"]
    assert plugins.tool_updates(CALL, "r", session) == [
        u for us in plugins.pm.hook.langacp_tool_updates(call=CALL, result="r", session=session) for u in us
    ]
    plugins.pm.unregister(name="one")
    assert plugins.tool_updates(CALL, "r", session) == ["c:r"]


def test_a_wrapper_is_called_through_pluggy() -> None:
    plugins = Plugins()
    session = _session(plugins)
    assert plugins.tool_title(CALL, session) == "add"
    wrapping = Wrapping()
    plugins.register(wrapping, "wrapping")
    plugins.register(Named("named"), "named")
    assert plugins.tool_title(CALL, session) == "[named add]"
    assert wrapping.seen == ["named add"]
