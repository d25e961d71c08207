"""langacp-modes alone (core + this plugin), in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError
from modes_support import call, current_modes, failed_text, served, statuses

from langacp.client import RecordingClient
from langacp.plugins import load_plugins


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=True)
    [record] = [r for r in plugins.records if r.name == "modes"]
    assert record.status == "loaded" and record.distribution == "langacp-modes"
    assert {"langacp_session_modes", "langacp_set_mode", "langacp_permission"} <= set(record.hooks)


async def test_new_session_offers_the_four_modes_and_the_mode_option(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        await agent.initialize()
        new = await agent.conn.new_session(cwd=str(agent.cwd))
        assert new.modes is not None
        assert new.modes.current_mode_id == "interactive"
        assert [m.id for m in new.modes.available_modes] == ["agentic", "interactive", "readonly", "planning"]
        [option] = new.config_options or []  # no model choices configured: only the mode
        assert option.id == "mode" and option.category == "mode" and option.current_value == "interactive"


async def test_mode_descriptions_say_what_asks_and_what_does_not_run(tmp_path: Path) -> None:
    """What the editor's mode picker shows: a tool of unknown kind (a user's own) asks or does not run."""
    async with served(tmp_path) as agent:
        await agent.initialize()
        new = await agent.conn.new_session(cwd=str(agent.cwd))
        assert new.modes is not None
        described = {m.id: m.description or "" for m in new.modes.available_modes}
        asks = "asks before edits, deletes, moves, commands and any tool of unknown kind (other)"
        assert asks in described["interactive"], described["interactive"]
        for mode in ("readonly", "planning"):
            assert "tools of unknown kind (other) do not run" in described[mode], described[mode]
        assert "without asking" in described["agentic"]
        [option] = new.config_options or []
        assert {o.value: o.description for o in option.options} == described  # type: ignore[union-attr]


async def test_readonly_never_runs_a_disallowed_tool(tmp_path: Path) -> None:
    target, log = tmp_path / "out.txt", tmp_path / "commands.log"
    (tmp_path / "in.txt").write_text("hello", encoding="utf-8")
    client = RecordingClient(answer="allow_once")  # would allow anything it were asked about
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        await agent.conn.set_session_mode(session_id=sid, mode_id="readonly")
        await agent.client.wait_for(lambda _: current_modes(agent, sid) == ["readonly"])
        assert await agent.prompt(sid, call("write_file", path=str(target), text="x")) == "end_turn"
        assert await agent.prompt(sid, call("run_command", command="rm -rf /", log=str(log))) == "end_turn"
        assert not target.exists() and not log.exists()  # neither ran
        assert client.permission_requests == []  # refused outright, not asked
        assert statuses(agent, sid).count("failed") == 2
        assert "Read-only mode, where `write_file` (kind other) may not run" in failed_text(agent, sid)
        # a well-known read tool still runs (no kind plugin: matched by name)
        assert await agent.prompt(sid, call("read_file", path=str(tmp_path / "in.txt"))) == "end_turn"
        assert agent.client.text(sid).endswith("done: hello")


async def test_interactive_asks_and_agentic_does_not(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    client = RecordingClient(answer="allow_once")
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, call("write_file", path=str(target), text="one")) == "end_turn"
        assert len(client.permission_requests) == 1  # interactive: asked, allowed
        await agent.conn.set_session_mode(session_id=sid, mode_id="agentic")
        assert await agent.prompt(sid, call("write_file", path=str(target), text="two")) == "end_turn"
        assert len(client.permission_requests) == 1  # agentic: not asked
        assert target.read_text() == "one\ntwo\n"


async def test_unknown_mode_is_invalid_params_and_the_agent_keeps_serving(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid = await agent.start()
        with pytest.raises(RequestError) as err:
            await agent.conn.set_session_mode(session_id=sid, mode_id="yolo")
        assert err.value.code == -32602 and "yolo" in str(err.value.data)
        with pytest.raises(RequestError) as err:
            await agent.conn.set_config_option(config_id="mode", session_id=sid, value="yolo")
        assert err.value.code == -32602
        assert await agent.prompt(sid, "echo still here") == "end_turn"


async def test_the_mode_prompt_changes_the_next_model_call(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid = await agent.start()
        await agent.conn.set_session_mode(session_id=sid, mode_id="planning")
        await agent.prompt(sid, "sysprompt")
        text = agent.client.text(sid)
        assert text.startswith("system: You are the mode test agent.") and "planning mode" in text
        agent.client.updates.clear()
        await agent.conn.set_session_mode(session_id=sid, mode_id="interactive")  # no addition
        await agent.prompt(sid, "sysprompt")
        assert agent.client.text(sid) == "system: You are the mode test agent."


async def test_set_config_option_mode_switches_and_sends_current_mode_update(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    async with served(tmp_path) as agent:
        sid = await agent.start()
        response = await agent.conn.set_config_option(config_id="mode", session_id=sid, value="readonly")
        assert response.config_options[0].current_value == "readonly"
        await agent.client.wait_for(lambda _: current_modes(agent, sid) == ["readonly"])
        await agent.prompt(sid, call("write_file", path=str(target), text="x"))
        assert not target.exists()


async def test_session_modes_update_sends_config_option_update(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid = await agent.start()
        await agent.conn.set_session_mode(session_id=sid, mode_id="agentic")
        await agent.client.wait_for(
            lambda _: bool(agent.client.of(sid, "config_option_update")) and bool(current_modes(agent, sid))
        )
        [update] = agent.client.of(sid, "config_option_update")
        assert update.config_options[0].current_value == "agentic"
        assert current_modes(agent, sid) == ["agentic"]


async def test_planning_switch_tool_asks_and_switches_only_when_allowed(tmp_path: Path) -> None:
    answers = iter(["stay", "switch"])
    client = RecordingClient(answer=lambda request: next(answers))
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        await agent.conn.set_session_mode(session_id=sid, mode_id="planning")
        switch = call("switch_mode", mode_id="agentic", reason="1. write out.txt")
        assert await agent.prompt(sid, switch) == "end_turn"
        [request] = client.permission_requests
        assert [(o.option_id, o.name) for o in request.options] == [
            ("switch", "Switch to Agentic mode"),
            ("stay", "Stay in Planning mode"),
        ]
        assert (
            request.tool_call.kind == "switch_mode" and request.tool_call.content[0].content.text == "1. write out.txt"
        )
        assert current_modes(agent, sid) == ["planning"]  # the user said stay
        await agent.prompt(sid, call("write_file", path=str(target), text="x"))
        assert not target.exists()  # still planning: no side effects
        assert await agent.prompt(sid, switch) == "end_turn"
        await agent.client.wait_for(lambda _: current_modes(agent, sid) == ["planning", "agentic"])
        assert "switched the session to Agentic mode" in agent.client.text(sid)
        assert agent.client.of(sid, "config_option_update")[-1].config_options[0].current_value == "agentic"
        await agent.prompt(sid, call("write_file", path=str(target), text="x"))
        assert target.read_text() == "x\n"  # agentic now: ran without asking
        assert len(client.permission_requests) == 2


async def test_switch_tool_refuses_an_unknown_mode_without_asking(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_once")
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        await agent.prompt(sid, call("switch_mode", mode_id="nope"))
        assert client.permission_requests == []
        assert "there is no mode 'nope'" in failed_text(agent, sid)


async def test_mode_is_stored_with_the_session(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    async with served(tmp_path) as agent:
        sid = await agent.start()
        await agent.conn.set_session_mode(session_id=sid, mode_id="readonly")
        await agent.conn.close_session(session_id=sid)
        resumed = await agent.conn.resume_session(session_id=sid, cwd=str(agent.cwd))
        assert resumed.modes is not None and resumed.modes.current_mode_id == "readonly"
        await agent.prompt(sid, call("write_file", path=str(target), text="x"))
        assert not target.exists()


async def test_a_precompiled_graph_gets_no_modes_rather_than_unenforced_ones(tmp_path: Path) -> None:
    from langacp.testing.harness import serve_in_process

    async with serve_in_process("langacp.testing.agent:graph", plugins=["modes"]) as agent:
        await agent.initialize()
        new = await agent.conn.new_session(cwd=str(agent.cwd))
        assert new.modes is None and not new.config_options
        with pytest.raises(RequestError) as err:
            await agent.conn.set_session_mode(session_id=new.session_id, mode_id="readonly")
        assert err.value.code == -32601
        assert "precompiled graph: its tools cannot be limited" in agent.stderr()
        # The same for every later session, so said once per agent, not once per session/new.
        again = await agent.conn.new_session(cwd=str(agent.cwd))
        assert again.modes is None and not again.config_options
        assert agent.stderr().count("precompiled graph: its tools cannot be limited") == 1
