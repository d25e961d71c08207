"""The plugin manager in-process: call order, fallbacks when a plugin raises."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pluggy
import pytest

from langacp import PermissionRule, PermissionVerdict, PromptCancelled, SessionContext, ToolCallInfo, hookimpl
from langacp.plugins import PluginNameError, Plugins, driver_records

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


class RaisingEverywhere:
    """A plugin whose every hook raises; async ones raise when awaited."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def langacp_tool_title(self, call: Any, session: Any) -> str:
        self.calls += 1
        raise RuntimeError("title bug")

    @hookimpl
    def langacp_config_options(self, session: Any) -> list[Any]:
        raise RuntimeError("options bug")

    @hookimpl
    async def langacp_session_tools(self, session: Any) -> list[Any]:
        raise RuntimeError("tools bug")

    @hookimpl
    async def langacp_set_mode(self, session: Any, mode_id: str) -> bool:
        raise RuntimeError("mode bug")

    @hookimpl
    def langacp_permission(self, call: Any, kind: str, session: Any) -> str:
        raise RuntimeError("policy bug")

    @hookimpl
    async def langacp_ask_permission(self, call: Any, kind: str, session: Any) -> str:
        raise RuntimeError("prompt bug")


class Options:
    @hookimpl
    def langacp_config_options(self, session: Any) -> list[Any]:
        return ["an option"]


class Slow:
    @hookimpl
    async def langacp_session_created(self, session: Any) -> None:
        await asyncio.sleep(3600)

    @hookimpl
    async def langacp_ask_permission(self, call: Any, kind: str, session: Any) -> str:
        await asyncio.sleep(0.2)  # a person answering: never timed out
        return "allow"


class Cancels:
    @hookimpl
    def langacp_tool_title(self, call: Any, session: Any) -> str:
        raise PromptCancelled("on purpose")


def test_a_raising_implementation_is_skipped_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    plugins = Plugins()
    broken = RaisingEverywhere()
    plugins.register(broken, "broken")
    plugins.register(Options(), "options")
    with caplog.at_level(logging.DEBUG, logger="langacp.plugins"):
        assert plugins.tool_title(CALL, SESSION) == "add"  # the core default
        assert plugins.tool_title(CALL, SESSION) == "add"
        assert plugins.config_options(SESSION) == ["an option"]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage().split(" in ")[-1].split(";")[0] for r in errors] == [
        "langacp_tool_title",
        "langacp_config_options",
    ]
    assert "'broken'" in errors[0].getMessage() and errors[0].exc_info is not None
    assert broken.calls == 2 and plugins.failures[("broken", "langacp_tool_title")] == 2


async def test_async_implementations_are_guarded_too() -> None:
    plugins = Plugins()
    plugins.register(RaisingEverywhere(), "broken")
    assert await plugins.session_tools(SESSION) == []
    assert await plugins.set_mode(SESSION, "code") is None
    verdict = plugins.permission_verdict(CALL, "other", SESSION)
    assert verdict.decision == "ask"  # not the default "allow"
    answer = await plugins.ask_permission_verdict(CALL, "other", SESSION)
    assert answer.decision == "deny" and answer.reason == "the permission request failed"


async def test_a_slow_implementation_times_out_except_when_a_person_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGACP_HOOK_TIMEOUT", "0.05")
    plugins = Plugins()
    plugins.register(Slow(), "slow")
    await asyncio.wait_for(plugins.session_created(SESSION), 5)
    assert plugins.failures == {("slow", "langacp_session_created"): 1}
    assert (await plugins.ask_permission_verdict(CALL, "other", SESSION)).decision == "allow"


def test_prompt_cancelled_passes_through() -> None:
    plugins = Plugins()
    plugins.register(Cancels(), "cancels")
    with pytest.raises(PromptCancelled):
        plugins.tool_title(CALL, SESSION)
    assert plugins.failures == {}


class Commands:
    """``langacp_run_command`` as ``async def``: answers ``answer`` after an await, or raises after it."""

    def __init__(self, answer: str | None, fail: bool = False) -> None:
        self.answer, self.fail, self.calls = answer, fail, 0

    @hookimpl
    async def langacp_run_command(self, session: Any, name: str, argument: str) -> str | None:
        self.calls += 1
        await asyncio.sleep(0)
        if self.fail:
            raise RuntimeError("command bug")
        return self.answer


async def test_an_async_mapper_falls_through_after_the_await_to_the_next_plugin() -> None:
    plugins = Plugins()
    last = Commands("the last plugin's answer")
    plugins.register(last, "last")  # pluggy calls the plugin registered last first
    plugins.register(Commands(None), "not_mine")
    plugins.register(Commands(None, fail=True), "raising")
    assert await plugins.run_command(SESSION, "cmd", "") == "the last plugin's answer"
    assert plugins.failures == {("raising", "langacp_run_command"): 1}
    first = Commands("the first plugin's answer")
    plugins.register(first, "first")
    assert await plugins.run_command(SESSION, "cmd", "") == "the first plugin's answer"
    assert (first.calls, last.calls) == (1, 1)  # awaited in order: the plugins after an answer are not called


class AsyncTitles:
    @hookimpl
    async def langacp_tool_title(self, call: Any, session: Any) -> str:
        return "a coroutine, not a title"


class Typo:
    @hookimpl
    def langacp_tool_titel(self, call: Any, session: Any) -> str:
        return "never asked"


class AwaitableTitles:
    @hookimpl
    def langacp_tool_title(self, call: Any, session: Any) -> Any:
        return asyncio.sleep(0, "a coroutine, not a title")


@pytest.mark.parametrize(
    ("plugin", "why"),
    [
        (AsyncTitles(), "langacp_tool_title is async def, but langacp calls that hook synchronously"),
        (Typo(), "langacp_tool_titel is not a langacp hook"),
    ],
)
def test_a_plugin_that_slips_on_the_contract_is_refused(plugin: object, why: str) -> None:
    plugins = Plugins()
    with pytest.raises(pluggy.PluginValidationError, match=f"plugin 'slip' was refused: {why}"):
        plugins.register(plugin, "slip")
    assert not plugins.pm.has_plugin("slip") and plugins.tool_title(CALL, SESSION) == "add"


def test_an_awaitable_from_a_synchronous_hook_is_a_failure(caplog: pytest.LogCaptureFixture) -> None:
    plugins = Plugins()
    plugins.register(AwaitableTitles(), "awaitable")
    assert plugins.tool_title(CALL, SESSION) == "add"  # the core default, not a coroutine
    assert "returned an awaitable, but langacp_tool_title is not awaited" in caplog.text


class Rules:
    def __init__(self, *rules: PermissionRule) -> None:
        self.rules = list(rules)

    @hookimpl
    def langacp_permission_rules(self, call: Any, kind: str, session: Any) -> list[PermissionRule]:
        return self.rules


class Policy:
    def __init__(self, decision: str) -> None:
        self.decision = decision

    @hookimpl
    def langacp_permission(self, call: Any, kind: str, session: Any) -> str:
        return self.decision


@pytest.mark.parametrize(
    ("policy", "rules", "expected"),
    [
        ("allow", [], "allow"),
        ("ask", [PermissionRule("allow", tool="add")], "allow"),  # an allow rule loosens an ask
        ("deny", [PermissionRule("allow")], "deny"),  # never a policy deny
        ("allow", [PermissionRule("ask", kind="other")], "ask"),
        ("allow", [PermissionRule("allow"), PermissionRule("ask")], "ask"),  # the stricter rule wins
        ("allow", [PermissionRule("ask"), PermissionRule("deny", tool="a*", reason="no")], "deny"),
        ("allow", [PermissionRule("deny", tool="other_tool")], "allow"),  # does not match
        ("allow", [PermissionRule("deny", kind="edit")], "allow"),
    ],
)
def test_permission_rules_combine_with_the_policy(policy: str, rules: list[PermissionRule], expected: str) -> None:
    plugins = Plugins()
    plugins.register(Policy(policy), "policy")
    plugins.register(Rules(*rules[:1]), "rules1")
    plugins.register(Rules(*rules[1:]), "rules2")
    assert plugins.permission_verdict(CALL, "other", SESSION).decision == expected


def test_a_deny_rule_carries_its_reason_and_a_failing_rules_hook_asks() -> None:
    plugins = Plugins()
    plugins.register(Rules(PermissionRule("deny", tool="add", reason="not today")), "rules")
    assert plugins.permission_verdict(CALL, "other", SESSION) == PermissionVerdict("deny", "not today")
    plugins = Plugins()
    plugins.register(RaisingRules(), "raising")
    assert plugins.permission_verdict(CALL, "other", SESSION).decision == "ask"


class RaisingRules:
    @hookimpl
    def langacp_permission_rules(self, call: Any, kind: str, session: Any) -> list[PermissionRule]:
        raise RuntimeError("rules bug")


def test_records_list_builtins_first() -> None:
    plugins = Plugins()
    plugins.register(Titles("x"), "mine")
    names = [r.name for r in plugins.records]
    assert names[: len(plugins._defaults)] == [n for n, _ in plugins._defaults]
    assert names[-1] == "mine"


NAMES_SITE = Path(__file__).resolve().parent / "fixtures" / "names"


@pytest.fixture
def dash_plug(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture distribution ``langacp-dash-plug`` (entry point ``dash-plug``) on the path; no other plugin."""
    monkeypatch.syspath_prepend(str(NAMES_SITE))
    monkeypatch.delenv("LANGACP_DISABLE_PLUGINS", raising=False)


def _loaded(**kwargs: Any) -> dict[str, str]:
    plugins = Plugins()
    plugins.load_entry_points(autoload=False, **kwargs)
    return {r.name: r.status for r in plugins.records if r.name == "dash-plug"}


@pytest.mark.parametrize("spelling", ["dash-plug", "dash_plug", "Dash_Plug"])
def test_plugin_names_match_with_dash_or_underscore(dash_plug: None, spelling: str) -> None:
    assert _loaded(enabled=[spelling]) == {"dash-plug": "loaded"}
    assert _loaded(enabled=["dash-plug"], blocked=[spelling]) == {"dash-plug": "blocked"}


def test_blocking_an_unknown_or_builtin_plugin_is_an_error(dash_plug: None) -> None:
    with pytest.raises(PluginNameError, match=r"no plugin of that name is installed.*dash-plug"):
        _loaded(blocked=["dash-plugs"])
    with pytest.raises(PluginNameError, match="cannot be blocked"):
        _loaded(blocked=["langacp.default.tools"])


def test_an_unknown_name_in_the_environment_is_only_warned_about(
    dash_plug: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("LANGACP_DISABLE_PLUGINS", "dash_plug,not-installed")
    assert _loaded(enabled=["dash-plug"]) == {"dash-plug": "blocked"}
    assert "not_installed" in caplog.text


def test_drivers_are_listed_with_where_they_come_from(dash_plug: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "langacp_dash_plug", raising=False)
    drivers = {(r.group, r.name): r for r in driver_records()}
    memory = drivers["langacp.stores", "memory"]
    assert (memory.status, memory.distribution, memory.source) == (
        "driver",
        "langacp",
        "langacp.stores.memory:MemoryStore",
    )
    fixture = drivers["langacp.stores", "fixture-store"]
    assert (fixture.distribution, fixture.source) == ("langacp-dash-plug", "langacp_dash_plug:FixtureStore")
    assert "langacp_dash_plug" not in sys.modules  # listed from metadata, nothing imported
