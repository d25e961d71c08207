"""The plugin manager in-process: call order, fallbacks when a plugin raises."""

from __future__ import annotations

from typing import Any

from langacp import SessionContext, ToolCallInfo, hookimpl
from langacp.plugins import Plugins

CALL = ToolCallInfo("call_1", "add", {"a": 1})
SESSION = SessionContext(session_id="s", cwd="/tmp")


class Titles:
    def __init__(self, title: str | None) -> None:
        self.title = title

    @hookimpl
    def langacp_tool_title(self, call: Any, session: Any) -> str | None:
        return self.title


class LastResortTitles:
    @hookimpl(trylast=True)
    def langacp_tool_title(self, call: Any, session: Any) -> str | None:
        return "trylast plugin"


class FirstTitles:
    @hookimpl(tryfirst=True)
    def langacp_tool_title(self, call: Any, session: Any) -> str | None:
        return "tryfirst plugin"


class Raising:
    @hookimpl
    def langacp_tool_kind(self, call: Any, session: Any) -> str:
        raise RuntimeError("plugin bug")


def test_core_default_answers_when_no_plugin_does() -> None:
    plugins = Plugins()
    plugins.register(Titles(None), "none")
    assert plugins.tool_title(CALL, SESSION) == "add"


def test_a_trylast_plugin_still_beats_the_core_default() -> None:
    plugins = Plugins()
    plugins.register(LastResortTitles(), "late")
    assert plugins.tool_title(CALL, SESSION) == "trylast plugin"


def test_tiers_tryfirst_then_plain_then_trylast() -> None:
    plugins = Plugins()
    plugins.register(LastResortTitles(), "late")
    plugins.register(Titles("plain plugin"), "plain")
    assert plugins.tool_title(CALL, SESSION) == "plain plugin"
    plugins.register(FirstTitles(), "first")
    assert plugins.tool_title(CALL, SESSION) == "tryfirst plugin"


def test_a_raising_mapper_falls_back_to_the_core_default() -> None:
    plugins = Plugins()
    plugins.register(Raising(), "raising")
    assert plugins.tool_kind(CALL, SESSION) == "other"


def test_records_list_builtins_first() -> None:
    plugins = Plugins()
    plugins.register(Titles("x"), "mine")
    names = [r.name for r in plugins.records]
    assert names[:4] == [n for n, _ in plugins._defaults]
    assert names[-1] == "mine"
