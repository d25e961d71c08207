"""Synchronous hooks called directly (langacp.hook_calls) answer as pluggy does; pluggy calls when they cannot."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langacp import SessionContext, ToolCallInfo, hookimpl
from langacp.plugins import Plugins
from langacp.protocol import update_json
from langacp.replay import replay_messages


class Titles:
    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.asked: list[str] = []

    @hookimpl
    def langacp_tool_title(self, call: Any, session: Any) -> str | None:
        self.asked.append(self.tag)
        return None if call.name == "pass" else f"{self.tag}: {call.name}"

    @hookimpl
    def langacp_tool_kind(self, call: Any) -> str | None:  # takes fewer arguments than the spec gives
        return "read" if call.name.startswith("read") else None


class LastWord:
    @hookimpl(trylast=True)
    def langacp_tool_title(self, call: Any, session: Any) -> str:
        return f"last: {call.name}"


class Wrapping:
    @hookimpl(wrapper=True)
    def langacp_tool_title(self, call: Any, session: Any) -> Generator[None, str, str]:
        answer = yield
        return f"[{answer}]"


def _both(plugins: Plugins, hook: str, **kwargs: Any) -> tuple[Any, Any]:
    """The direct answer, then pluggy's own (``pm.hook``) for the same call."""
    return plugins.direct.call(hook, kwargs), getattr(plugins.pm.hook, hook)(**kwargs)


def test_direct_calls_answer_as_pluggy_in_pluggy_order() -> None:
    plugins = Plugins()
    first, second = Titles("first"), Titles("second")
    plugins.register(LastWord(), "last")
    plugins.register(first, "first")
    plugins.register(second, "second")  # registered last: called first
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    for name in ("read_file", "pass", "other"):
        call = ToolCallInfo("c", name, {"path": "x"})
        direct, through_pluggy = _both(plugins, "langacp_tool_title", call=call, session=session)
        assert direct == through_pluggy == (f"second: {name}" if name != "pass" else "last: pass")
        kinds = _both(plugins, "langacp_tool_kind", call=call, session=session)
        assert kinds[0] == kinds[1] == ("read" if name == "read_file" else "other")
    assert first.asked == ["first", "first"]  # only for "pass", which the second plugin did not answer
    # a hook with every answer (not first-result): the same list, in the same order
    call = ToolCallInfo("c", "todo", {"todos": []})
    assert (
        _both(plugins, "langacp_tool_updates", call=call, result=ToolMessage("ok", tool_call_id="c"), session=session)[
            0
        ]
        == []
    )


def test_a_plugin_registered_or_unregistered_later_is_seen() -> None:
    plugins = Plugins()
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    call = ToolCallInfo("c", "lookup", {"q": "x"})
    assert plugins.tool_title(call, session) == "lookup"  # the core's default: the name
    plugins.register(Titles("late"), "late")
    assert plugins.tool_title(call, session) == "late: lookup"
    plugins.pm.unregister(name="late")
    assert plugins.tool_title(call, session) == "lookup"


def test_a_wrapper_goes_through_pluggy() -> None:
    plugins = Plugins()
    plugins.register(Titles("t"), "t")
    plugins.register(Wrapping(), "wrapping")
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    assert plugins.tool_title(ToolCallInfo("c", "lookup", {"q": "x"}), session) == "[t: lookup]"


def test_monitoring_sends_every_call_through_pluggy() -> None:
    plugins = Plugins()
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    seen: list[str] = []
    plugins.pm.add_hookcall_monitoring(lambda name, impls, kwargs: seen.append(name), lambda *a: None)
    plugins.tool_title(ToolCallInfo("c", "lookup", {"q": "x"}), session)
    assert seen == ["langacp_tool_title"]


def test_a_missing_argument_is_pluggys_error_before_any_implementation_runs() -> None:
    import pluggy

    plugins = Plugins()
    titles = Titles("t")
    plugins.register(titles, "t")
    with pytest.raises(pluggy.HookCallError), pytest.warns(UserWarning, match="cannot be found"):
        plugins.direct.call("langacp_tool_title", {"call": ToolCallInfo("c", "x", {})})
    assert titles.asked == []


def test_an_exception_passes_through_as_with_pluggy() -> None:
    from langacp.types import PromptCancelled

    class Cancels:
        @hookimpl
        def langacp_tool_title(self, call: Any, session: Any) -> str:
            raise PromptCancelled

    plugins = Plugins()
    plugins.register(Cancels(), "cancels")
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    with pytest.raises(PromptCancelled):
        plugins.tool_title(ToolCallInfo("c", "x", {"q": 1}), session)


class ListSink:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []

    def put(self, update: Any, message_id: str | None = None) -> None:
        from langacp.bridge.outbox import _unnamed_chunk, with_message_id

        if _unnamed_chunk(update):
            update = with_message_id(update, message_id or "fresh")
        self.updates.append(update_json(update))


def recorded_session() -> list[Any]:
    """A thread with text, an image, reasoning, tool calls that completed, failed or never finished."""
    calls = [
        {"name": "read_file", "args": {"path": "src/a.py"}, "id": "c1", "type": "tool_call"},
        {"name": "run_command", "args": {"command": "pytest -q"}, "id": "c2", "type": "tool_call"},
        {
            "name": "edit_file",
            "args": {"path": "b.py", "old_string": "a", "new_string": "b"},
            "id": "c3",
            "type": "tool_call",
        },
    ]
    return [
        HumanMessage(
            [{"type": "text", "text": "look"}, {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}],
            id="h1",
        ),
        AIMessage(
            [{"type": "reasoning", "reasoning": "hmm"}, {"type": "text", "text": "reading"}], tool_calls=calls, id="a1"
        ),
        ToolMessage("print(1)", tool_call_id="c1", name="read_file", id="t1"),
        ToolMessage("boom", tool_call_id="c2", name="run_command", status="error", id="t2"),
        AIMessage("done", id="a2"),
        HumanMessage("again", id="h2"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1", "type": "tool_call"}], id="a3"),
        ToolMessage([{"type": "text", "text": "3"}], tool_call_id="c1", name="add", id="t3"),
    ]


def test_a_replay_is_the_same_through_pluggy_and_called_directly() -> None:
    """The replay of a recorded session, with every installed plugin, is byte for byte the same both ways."""
    import json

    from langacp.plugins import load_plugins

    def replay(direct: bool) -> str:
        plugins = load_plugins()
        plugins.pm.monitored = not direct  # the flag monitoring sets: every call through pluggy
        session = SessionContext(session_id="s", cwd="/tmp/project", plugins=plugins)
        sink = ListSink()
        replay_messages(plugins, session, recorded_session(), sink)  # type: ignore[arg-type]
        return json.dumps(sink.updates)

    through_pluggy = replay(direct=False)
    assert replay(direct=True) == through_pluggy
    assert through_pluggy.count('"sessionUpdate": "tool_call"') == 4


# -- the plans' staleness check: every change to registrations or specs is seen ------------------

_MANAGER_METHODS = {
    # changes registrations or specs (MonitoredManager counts each): register, unregister, add_hookspecs,
    # add_hookcall_monitoring; through them: set_blocked (unregister), load_setuptools_entrypoints
    # (register), enable_tracing (add_hookcall_monitoring)
    "add_hookcall_monitoring",
    "add_hookspecs",
    "enable_tracing",
    "load_setuptools_entrypoints",
    "register",
    "set_blocked",
    "unregister",
    # read only, or changes nothing a call reads (unblock lets a later register through)
    "check_pending",
    "get_canonical_name",
    "get_hookcallers",
    "get_name",
    "get_plugin",
    "get_plugins",
    "has_plugin",
    "is_blocked",
    "is_registered",
    "list_name_plugin",
    "list_plugin_distinfo",
    "list_plugin_distributions",
    "parse_hookimpl_opts",
    "parse_hookspec_opts",
    "subset_hook_caller",
    "unblock",
}
_CALLER_METHODS = {
    # set_specification changes a spec without the manager: the plan keeps the spec object and compares it
    "set_specification",
    # call_extra / call_historic call through pluggy with a copy of the list; the rest only read
    "call_extra",
    "call_historic",
    "get_hookimpls",
    "has_spec",
    "is_historic",
    "name",
    "spec",
}


def test_pluggys_public_methods_are_the_known_ones() -> None:
    """A pluggy with a new public way to change registrations must be looked at (langacp.hook_calls' plans)."""
    import pluggy

    assert {n for n in dir(pluggy.PluginManager) if not n.startswith("_")} == _MANAGER_METHODS
    caller = Plugins().pm.hook.langacp_tool_title
    assert {n for n in dir(caller) if not n.startswith("_")} == _CALLER_METHODS
    assert type(caller) is pluggy.HookCaller


def test_every_public_change_to_the_registrations_is_seen() -> None:
    plugins = Plugins()
    session = SessionContext(session_id="s", cwd="/tmp", plugins=plugins)
    call = ToolCallInfo("c", "lookup", {"q": "x"})

    def title() -> str:
        direct, through_pluggy = _both(plugins, "langacp_tool_title", call=call, session=session)
        assert direct == through_pluggy
        return str(direct)

    assert title() == "lookup"
    raw = Titles("raw")
    plugins.pm.register(raw, "raw")  # pluggy's own register, not the guarded one
    assert title() == "raw: lookup"
    plugins.pm.set_blocked("raw")  # unregisters it
    assert title() == "lookup"
    plugins.pm.unblock("raw")
    plugins.register(Titles("guarded"), "guarded")
    assert title() == "guarded: lookup"
    plugins.pm.unregister(name="guarded")
    assert title() == "lookup"


def test_a_spec_added_or_set_later_is_seen() -> None:
    """An unspecified hook answers a list; once its spec says first result, the first answer."""
    import pluggy

    from langacp.hook_calls import DirectCalls, MonitoredManager

    spec, impl = pluggy.HookspecMarker("probe"), pluggy.HookimplMarker("probe")

    class Impl:
        @impl
        def probe_hook(self, x: int) -> int:
            return x + 1

    class Specs:
        @spec(firstresult=True)
        def probe_hook(self, x: int) -> int:  # type: ignore[empty-body]
            """A first-result hook."""

    for how in ("add_hookspecs", "set_specification"):
        pm = MonitoredManager("probe")
        direct = DirectCalls(pm)
        pm.register(Impl())
        assert direct.call("probe_hook", {"x": 1}) == pm.hook.probe_hook(x=1) == [2]
        if how == "add_hookspecs":
            pm.add_hookspecs(Specs)
        else:  # on the caller itself, the manager not told
            pm.hook.probe_hook.set_specification(Specs, {"firstresult": True})
        assert direct.call("probe_hook", {"x": 1}) == pm.hook.probe_hook(x=1) == 2


def test_a_plain_plugin_manager_is_called_through_pluggy_and_never_kept() -> None:
    import pluggy

    from langacp import hookspecs
    from langacp.hook_calls import DirectCalls

    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    direct = DirectCalls(pm)
    kwargs = {"call": ToolCallInfo("c", "x", {}), "session": None}
    assert direct.call("langacp_tool_title", kwargs) is None
    pm.register(Titles("t"), "t")
    assert direct.call("langacp_tool_title", kwargs) == "t: x"
    pm.register(Wrapping(), "wrapping")
    assert direct.call("langacp_tool_title", kwargs) == "[t: x]"
