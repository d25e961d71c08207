"""Plugins found by entry point, over real pipes: loading, blocking, and every hook family.

The fixture plugin ``langacp_testplug`` (tests/fixtures/site) is a real distribution with a
``langacp`` entry point; each test switches on the features it needs.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from acp import RequestError, image_block, text_block
from core_support import FIXTURES, REPO, TESTPLUG_SITE, Running, StartAgent, agent_env

from langacp.client import RecordingClient
from langacp.testing.calls import tool_prompt

TRACED = f"{FIXTURES / 'stages_target.py'}:traced"


def plugins_json(*args: str, **env_kw: object) -> tuple[dict[str, dict[str, object]], str]:
    """``langacp plugins --json`` with autoload on (unless ``extra`` turns it off)."""
    extra = {"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "", **(env_kw.pop("extra", None) or {})}  # type: ignore[dict-item]
    env = agent_env(extra=extra, **env_kw)  # type: ignore[arg-type]
    out = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "plugins", "--json", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=True,
        timeout=60,
    )
    return {r["name"]: r for r in json.loads(out.stdout)["plugins"]}, out.stderr


def latest(agent: Running, sid: str, field: str) -> object:
    """The latest value of ``field`` across a session's tool_call / tool_call_update updates."""
    values = [getattr(u, field) for u in agent.client.of(sid) if u.session_update.startswith("tool_call")]
    return [v for v in values if v is not None][-1]


def test_plugins_lists_builtin_and_entry_point_plugins() -> None:
    records, _ = plugins_json(testplug=["titles"])
    assert records["langacp.default.tools"]["status"] == "builtin"
    plug = records["testplug"]
    assert plug["status"] == "loaded"
    assert plug["distribution"] == "langacp-testplug" and plug["version"] == "0.1.0"
    assert "langacp_tool_title" in plug["hooks"]


def test_plugins_says_who_gives_tools_their_kind_and_how_to_give_one() -> None:
    env = agent_env()  # the core alone
    shown = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "plugins"], env=env, capture_output=True, text=True, check=True
    ).stdout
    note = shown[shown.index("tool kinds:") :]
    assert note.startswith("tool kinds: langacp.default.tools (langacp_tool_kind"), note
    assert "A tool none of them knows is 'other': the default permission policy asks before every call" in note
    assert "[tools.kinds]" in note and "docs/tool-kinds.md#your-own-tools" in note


def test_broken_plugin_is_reported_and_the_others_still_load() -> None:
    records, stderr = plugins_json(testplug=["titles"], broken=True)
    assert records["brokenplug"]["status"] == "broken"
    assert "broken on purpose" in records["brokenplug"]["error"]
    assert records["testplug"]["status"] == "loaded"
    assert "brokenplug" in stderr


def test_blocking_and_autoload_switch() -> None:
    records, _ = plugins_json("-p", "no:testplug", testplug=["titles"])
    assert records["testplug"]["status"] == "blocked"
    records, _ = plugins_json(testplug=["titles"], extra={"LANGACP_DISABLE_PLUGINS": "testplug"})
    assert records["testplug"]["status"] == "blocked"
    records, _ = plugins_json(testplug=["titles"], extra={"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert records["testplug"]["status"] == "not-loaded"
    records, _ = plugins_json("-p", "testplug", testplug=["titles"], extra={"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert records["testplug"]["status"] == "loaded"


async def test_broken_plugin_does_not_stop_the_agent(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["titles"], broken=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        assert latest(agent, sid, "title") == "add(a=1, b=2)"  # the good plugin still works
        assert "brokenplug" in agent.stderr()


async def test_a_plugin_slipping_on_the_contract_is_refused_in_one_line(start_agent: StartAgent) -> None:
    """``async def langacp_tool_title`` (a synchronous hook) and ``langacp_tool_titel`` (no hook), over real pipes.

    Were asyncslip registered, its coroutine would be the title (it is called before testplug)
    and the turn would never be answered.
    """
    path = os.pathsep.join([str(FIXTURES / "slips"), str(TESTPLUG_SITE), os.environ.get("PYTHONPATH", "")])
    slips = ["-p", "asyncslip", "-p", "typoslip"]
    async with start_agent(testplug=["titles"], args=slips, env={"PYTHONPATH": path}, subprocess=True) as agent:
        sid = await agent.start()
        assert await asyncio.wait_for(agent.prompt(sid, 'tool add {"a": 1, "b": 2}'), 30) == "end_turn"
        assert latest(agent, sid, "title") == "add(a=1, b=2)"  # the plugin that keeps the contract still works
        stderr = agent.stderr().splitlines()
    refused = {
        "asyncslip": "langacp_tool_title is async def, but langacp calls that hook synchronously",
        "typoslip": "langacp_tool_titel is not a langacp hook",
    }
    for plugin, why in refused.items():
        lines = [line for line in stderr if plugin in line]
        assert len(lines) == 1 and f"plugin '{plugin}' (langacp-slips)" in lines[0] and why in lines[0], lines


async def test_third_party_mappers_override_the_defaults(start_agent: StartAgent) -> None:
    """langacp_tool_kind, langacp_tool_title, langacp_tool_locations, langacp_tool_result_content."""
    async with start_agent(testplug=["titles"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, 'tool add {"a": 4, "b": 5}')
        assert latest(agent, sid, "title") == "add(a=4, b=5)" and latest(agent, sid, "kind") == "search"
        located = [u for u in agent.client.of(sid, "tool_call_update") if u.locations]
        assert located[0].locations[0].path == str(agent.cwd / "sums.txt")
        assert located[0].locations[0].line == 4
        final = agent.client.of(sid, "tool_call_update")[-1]
        assert final.content[0].content.text == "result of add: 9"


async def test_raising_hooks_are_skipped_and_the_defaults_apply(start_agent: StartAgent) -> None:
    """A plugin raising in langacp_session_created, langacp_config_options and two mappers."""
    async with start_agent(testplug=["raise", "titles", "config"]) as agent:
        await agent.conn.initialize(protocol_version=1)
        new = await agent.conn.new_session(cwd=str(agent.cwd))
        assert new.config_options is None  # the plugin's options are gone, the session is not
        sid = new.session_id
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        assert latest(agent, sid, "title") == "add" and latest(agent, sid, "kind") == "other"
        # Mappers that do not raise still answer: the plugin's result content is used.
        assert agent.client.of(sid, "tool_call_update")[-1].content[0].content.text == "result of add: 3"
        await agent.prompt(sid, 'tool add {"a": 2, "b": 2}')
        stderr = agent.stderr()
        for hook in ("langacp_session_created", "langacp_config_options", "langacp_tool_kind", "langacp_tool_title"):
            logged = f"plugin 'testplug' raised RuntimeError: testplug broke in {hook} on purpose in {hook}"
            assert stderr.count(logged) == 1, hook  # logged once, naming the plugin and the hook


async def test_a_hook_that_never_ends_is_given_up(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["slow"], env={"LANGACP_HOOK_TIMEOUT": "0.5"}) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "echo hi") == "end_turn"
        assert "did not finish within 0.5 s" in agent.stderr()


def test_a_plugin_printing_does_not_spoil_the_plugin_list() -> None:
    records, stderr = plugins_json(testplug=["print"])
    assert records["testplug"]["status"] == "loaded"
    assert "testplug writes to stdout while it loads" in stderr


async def test_blocked_plugin_restores_the_defaults(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["titles"], args=["-p", "no:testplug"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, 'tool add {"a": 4, "b": 5}')
        assert latest(agent, sid, "title") == "add" and latest(agent, sid, "kind") == "other"


async def test_lifecycle_hooks(start_agent: StartAgent) -> None:
    """langacp_session_created, langacp_prompt_started, langacp_prompt_finished, langacp_session_closed."""
    async with start_agent(testplug=["events"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo hi")
        await agent.conn.close_session(session_id=sid)
        events = agent.events()
        assert [e["event"] for e in events] == [
            "session_created",
            "prompt_started",
            "prompt_finished",
            "session_closed",
        ]
        assert events[0]["cwd"] == str(agent.cwd)
        assert events[2]["stop_reason"] == "end_turn" and events[2]["model_calls"] == 1


async def test_session_contributions_reach_a_factory_agent(start_agent: StartAgent) -> None:
    """langacp_session_tools, langacp_session_middleware, langacp_system_prompt."""
    async with start_agent(testplug=["contrib", "events"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tool plugin_tool {}") == "end_turn"
        assert agent.client.text(sid) == f"done: from plugin in {agent.cwd}"
        agent.client.updates.clear()
        await agent.prompt(sid, "sysprompt")
        assert agent.client.text(sid) == "system: You are a scripted test agent.\n\nPLUGIN PROMPT ADDITION"
        assert any(e["event"] == "before_model" for e in agent.events())


async def test_deny_policy_never_runs_the_tool(start_agent: StartAgent) -> None:
    """langacp_permission returning deny."""
    async with start_agent(testplug=["deny"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 1}') == "end_turn"
        final = agent.client.of(sid, "tool_call_update")[-1]
        assert final.status == "failed"
        assert "denied" in agent.client.text(sid) and "done: 2" not in agent.client.text(sid)
        assert agent.client.permission_requests == []


async def test_tool_starting_and_finished_hooks_run_around_the_tool_after_the_permission_check(
    start_agent: StartAgent, tmp_path: Path
) -> None:
    """langacp_tool_starting and langacp_tool_finished, over real pipes: once per call that runs, with
    its arguments, before the tool (the file the tool writes is not there yet) and after it (with its
    result); never for a call the policy refused."""
    target = tmp_path / "written.txt"
    args = {"path": str(target), "text": "hi"}
    async with start_agent(TRACED, testplug=["events", "deny"], subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("write_file", **args)) == "end_turn"
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 1}') == "end_turn"  # denied by testplug
        assert agent.client.of(sid, "tool_call_update")[-1].status == "failed"
        starting = [e for e in agent.events() if e["event"] in ("tool_starting", "tool_finished", "tool_file")]
        assert starting == [
            {"event": "tool_starting", "tool": "write_file", "id": starting[0]["id"], "args": args},
            {"event": "tool_file", "exists": False},
            {"event": "tool_finished", "tool": "write_file", "id": starting[0]["id"], "result": f"wrote {target}"},
            {"event": "tool_file", "exists": True},
        ]
        assert target.read_text() == "hi\n"


async def test_a_denial_carries_its_reason_to_the_model_and_the_editor(start_agent: StartAgent) -> None:
    """langacp_permission returning a PermissionVerdict with a reason."""
    async with start_agent(testplug=["deny", "reason"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 1}') == "end_turn"
        final = agent.client.of(sid, "tool_call_update")[-1]
        assert final.status == "failed"
        assert "adding is forbidden in this project" in final.content[0].content.text
        assert agent.client.text(sid).startswith("done: The call to add did not run: adding is forbidden")


async def test_a_permission_rule_is_enforced_by_the_core(start_agent: StartAgent) -> None:
    """langacp_permission_rules: a deny rule wins although the policy (the core default) allows."""
    async with start_agent(testplug=["rules"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 1}') == "end_turn"
        final = agent.client.of(sid, "tool_call_update")[-1]
        assert final.status == "failed" and "testplug's rule forbids adding" in final.content[0].content.text
        assert await agent.prompt(sid, "tool noisy {}") == "end_turn"
        assert agent.client.of(sid, "tool_call_update")[-1].status == "completed"  # other tools still run


async def test_a_policy_that_raises_asks_instead_of_allowing(start_agent: StartAgent) -> None:
    """langacp_permission raising: the core default (allow) must not be used; the user is asked."""
    client = RecordingClient(answer="reject_once")
    async with start_agent(testplug=["policy-raises"], client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 1}') == "end_turn"
        assert len(client.permission_requests) == 1
        assert "done: 2" not in agent.client.text(sid)
        assert "a broken policy" in agent.stderr()


@pytest.mark.parametrize(
    ("answer", "ran", "stop"),
    [("allow_once", True, "end_turn"), ("reject_once", False, "end_turn"), (None, False, "cancelled")],
)
async def test_ask_policy_asks_the_client(start_agent: StartAgent, answer: str | None, ran: bool, stop: str) -> None:
    """langacp_permission returning ask; the core's langacp_ask_permission sends request_permission."""
    client = RecordingClient(answer=answer)
    async with start_agent(testplug=["ask"], client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 20, "b": 22}') == stop
        [request] = client.permission_requests
        assert request.tool_call.raw_input == {"a": 20, "b": 22}
        assert {o.kind for o in request.options} == {"allow_once", "reject_once"}
        statuses = [u.status for u in agent.client.of(sid, "tool_call_update") if u.status]
        assert statuses[-1] == ("completed" if ran else "failed")
        assert ("done: 42" in agent.client.text(sid)) is ran
        if answer == "reject_once":  # the model is told who said no
            assert "did not run: the user declined it" in agent.client.text(sid)
        if stop == "cancelled":  # the thread was repaired: the next prompt works
            agent.client.updates.clear()
            assert await agent.prompt(sid, "dangling") == "end_turn"
            assert agent.client.text(sid) == "dangling: 0"


async def test_permission_request_shows_what_the_client_was_shown(start_agent: StartAgent) -> None:
    """langacp_tool_start_content: in the tool_call once args are known, and in the permission request."""
    client = RecordingClient(answer="allow_once")
    async with start_agent(testplug=["ask", "titles"], client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 2, "b": 3}') == "end_turn"
        [request] = client.permission_requests
        assert request.tool_call.title == "add(a=2, b=3)" and request.tool_call.kind == "search"
        assert request.tool_call.locations[0].path == str(agent.cwd / "sums.txt")
        assert request.tool_call.content[0].content.text == "about to add 2 and 3"
        shown = [u for u in agent.client.of(sid) if getattr(u, "content", None)]
        assert shown[0].content[0].content.text == "about to add 2 and 3"  # before the result


async def test_a_plugin_can_answer_ask_itself(start_agent: StartAgent) -> None:
    """langacp_ask_permission implemented by a plugin."""
    async with start_agent(testplug=["ask", "ask-all-yes", "events"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        assert agent.client.permission_requests == []
        assert {"event": "asked", "tool": "add", "kind": "other"} in agent.events()
        assert agent.client.text(sid) == "done: 3"


async def test_human_in_the_loop_interrupts_are_resumed_by_a_plugin(start_agent: StartAgent) -> None:
    """langacp_resume_interrupt answering HumanInTheLoopMiddleware."""
    async with start_agent("hitl_agent", testplug=["hitl", "events"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 2, "b": 5}') == "end_turn"
        assert agent.client.text(sid) == "done: 7"
        assert {"event": "interrupt", "actions": ["add"]} in agent.events()


async def test_unanswered_interrupt_fails_the_call_cancels_the_turn_and_says_why(start_agent: StartAgent) -> None:
    async with start_agent("hitl_agent") as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 2, "b": 5}') == "cancelled"
        assert "interrupt" in agent.client.text(sid)
        statuses = [u.status for u in agent.client.of(sid) if getattr(u, "tool_call_id", None) and u.status]
        assert statuses[-1] == "failed" and "pending" not in statuses[1:]
        agent.client.updates.clear()
        assert await agent.prompt(sid, "echo next") == "end_turn"  # the session goes on
        assert agent.client.text(sid) == "next"


async def test_modes(start_agent: StartAgent) -> None:
    """langacp_session_modes and langacp_set_mode."""
    async with start_agent(testplug=["modes"]) as agent:
        await agent.conn.initialize(protocol_version=1)
        new = await agent.conn.new_session(cwd=str(agent.cwd))
        assert new.modes is not None and new.modes.current_mode_id == "ask"
        assert [m.id for m in new.modes.available_modes] == ["ask", "code"]
        await agent.conn.set_session_mode(session_id=new.session_id, mode_id="code")
        await agent.client.wait_for(lambda ups: any(u.session_update == "current_mode_update" for _, u in ups))
        [update] = agent.client.of(new.session_id, "current_mode_update")
        assert update.current_mode_id == "code"
        with pytest.raises(RequestError) as err:
            await agent.conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
        assert err.value.code == -32602


async def test_config_options(start_agent: StartAgent) -> None:
    """langacp_config_options and langacp_set_config_option."""
    async with start_agent(testplug=["config"]) as agent:
        await agent.conn.initialize(protocol_version=1)
        new = await agent.conn.new_session(cwd=str(agent.cwd))
        assert new.config_options is not None
        assert new.config_options[0].current_value == "small"
        response = await agent.conn.set_config_option(config_id="model", session_id=new.session_id, value="large")
        assert response.config_options[0].current_value == "large"
        for config_id, value in (("model", "huge"), ("nope", "x")):
            with pytest.raises(RequestError) as err:
                await agent.conn.set_config_option(config_id=config_id, session_id=new.session_id, value=value)
            assert err.value.code == -32602


async def test_slash_commands(start_agent: StartAgent) -> None:
    """langacp_available_commands and langacp_run_command."""
    async with start_agent(testplug=["commands"]) as agent:
        sid = await agent.start()
        await agent.client.wait_for(lambda ups: any(u.session_update == "available_commands_update" for _, u in ups))
        [commands] = agent.client.of(sid, "available_commands_update")
        assert [c.name for c in commands.available_commands] == ["hello"]
        assert await agent.prompt(sid, "/hello editor") == "end_turn"
        assert agent.client.text(sid) == "Hello, editor!"
        agent.client.updates.clear()
        assert await agent.prompt(sid, "/unknown thing") == "end_turn"  # not a command: goes to the model
        assert agent.client.text(sid) == "You said: /unknown thing"


async def test_stop_reason_hook(start_agent: StartAgent) -> None:
    """langacp_stop_reason mapping a provider's length finish to max_tokens."""
    async with start_agent(testplug=["stop"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "truncated") == "max_tokens"
        assert await agent.prompt(sid, "echo fine") == "end_turn"
    async with start_agent() as agent:  # without the plugin: the core default
        sid = await agent.start()
        assert await agent.prompt(sid, "truncated") == "end_turn"


async def test_error_mapping_hook(start_agent: StartAgent) -> None:
    """langacp_map_error."""
    async with start_agent(testplug=["errors"]) as agent:
        sid = await agent.start()
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "error quota exceeded")
        assert err.value.code == -32000
        assert "quota exhausted" in str(err.value.data)


async def test_tool_updates_hook_sends_and_replays(start_agent: StartAgent) -> None:
    """langacp_tool_updates: extra updates after a finished tool call, replayed by session/load."""
    async with start_agent(testplug=["extras"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 2, "b": 5}') == "end_turn"
        kinds = [u.session_update for u in agent.client.of(sid)]
        completed = next(i for i, u in enumerate(agent.client.of(sid)) if getattr(u, "status", None) == "completed")
        assert kinds.index("plan") == completed + 1  # right after the tool call finished
        [plan] = agent.client.of(sid, "plan")
        assert [(e.content, e.status) for e in plan.entries] == [("add 2 and 5", "completed")]
        assert await agent.prompt(sid, "fail nope") == "end_turn"  # a failed call: the plugin adds nothing
        assert len(agent.client.of(sid, "plan")) == 1
        await agent.conn.close_session(session_id=sid)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid)
        [replayed] = agent.client.of(sid, "plan")
        assert replayed.entries == plan.entries


async def test_prompt_usage_hook(start_agent: StartAgent) -> None:
    """langacp_prompt_usage: the response's usage, from the token totals of every model call of the turn."""
    async with start_agent(testplug=["extras"]) as agent:
        sid = await agent.start()
        one = await agent.conn.prompt(session_id=sid, prompt=[text_block("echo hello there")])
        assert one.usage is not None and one.usage.output_tokens == 3  # "hello there": 11 chars / 4
        assert one.usage.total_tokens == one.usage.input_tokens + one.usage.output_tokens > 3
        two = await agent.conn.prompt(session_id=sid, prompt=[text_block('tool add {"a": 1, "b": 1}')])
        assert two.usage is not None and two.usage.input_tokens > 2 * one.usage.input_tokens  # two model calls
    async with start_agent() as agent:  # the core alone sends no usage
        sid = await agent.start()
        assert (await agent.conn.prompt(session_id=sid, prompt=[text_block("echo hi")])).usage is None


async def test_auth_methods_and_authenticate(start_agent: StartAgent) -> None:
    """langacp_auth_methods and langacp_authenticate."""
    async with start_agent(testplug=["auth"]) as agent:
        response = await agent.conn.initialize(protocol_version=1)
        assert [m.id for m in response.auth_methods] == ["testauth"]
        await agent.conn.authenticate(method_id="testauth")
        with pytest.raises(RequestError) as err:
            await agent.conn.authenticate(method_id="badauth")
        assert err.value.code == -32000
        with pytest.raises(RequestError) as err:
            await agent.conn.authenticate(method_id="other")
        assert err.value.code == -32602


async def test_capabilities_and_prompt_blocks(start_agent: StartAgent) -> None:
    """langacp_agent_capabilities and langacp_prompt_block."""
    async with start_agent(testplug=["caps"]) as agent:
        response = await agent.conn.initialize(protocol_version=1)
        assert response.agent_capabilities.prompt_capabilities.image is True
        sid = (await agent.conn.new_session(cwd=str(agent.cwd))).session_id
        blocks = [text_block("echo look"), image_block("aGVsbG8=", "image/png")]
        assert (await agent.conn.prompt(session_id=sid, prompt=blocks)).stop_reason == "end_turn"
    async with start_agent() as agent:  # core alone refuses what it cannot map
        sid = await agent.start()
        with pytest.raises(RequestError) as err:
            await agent.conn.prompt(session_id=sid, prompt=[image_block("aGVsbG8=", "image/png")])
        assert err.value.code == -32602 and "image" in str(err.value.data)


async def test_output_block_hook(start_agent: StartAgent) -> None:
    """langacp_output_block."""
    async with start_agent(testplug=["shout"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo quiet words")
        assert agent.client.text(sid) == "QUIET WORDS"


async def test_session_loaded_hook(start_agent: StartAgent) -> None:
    """langacp_session_loaded, on resume."""
    async with start_agent(testplug=["events"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo one")
        await agent.conn.close_session(session_id=sid)
        await agent.conn.resume_session(session_id=sid, cwd=str(agent.cwd))
        assert agent.client.of(sid, "user_message_chunk") == []  # resume does not replay
        await asyncio.sleep(0)
        assert "session_loaded" in [e["event"] for e in agent.events()]
        assert await agent.prompt(sid, "history") == "end_turn"
        assert agent.client.text(sid).endswith("echo one | history")


async def test_typed_session_data_is_saved_and_restored(start_agent: StartAgent) -> None:
    """SessionContext.data: a plugin's dataclass, kept with the session under its name."""
    async with start_agent(testplug=["events", "data"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "echo one")
        await agent.prompt(sid, "echo two")
        await agent.conn.close_session(session_id=sid)
        await agent.conn.resume_session(session_id=sid, cwd=str(agent.cwd))
        await agent.prompt(sid, "echo three")
        fork = await agent.conn.fork_session(session_id=sid, cwd=str(agent.cwd))
        await agent.prompt(fork.session_id, "echo four")
        data = [e for e in agent.events() if e["event"] == "data"]
        assert [(e["session_id"], e["prompts"]) for e in data] == [(sid, 1), (sid, 2), (sid, 3), (fork.session_id, 4)]
        assert data[-1]["texts"] == ["echo one", "echo two", "echo three", "echo four"]
