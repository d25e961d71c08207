"""Asking over real pipes: what the request shows, what each answer does, what the model is told."""

from __future__ import annotations

import json
from pathlib import Path

from permissions_support import failed_text, option_name, served, statuses

from langacp.client import RecordingClient
from langacp.plugins import load_plugins


def _write(path: Path, text: str = "hello") -> str:
    return "tool write_file " + json.dumps({"path": str(path), "text": text})


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=True)
    [record] = [r for r in plugins.records if r.name == "permissions"]
    assert record.status == "loaded" and record.distribution == "langacp-permissions"
    assert {"langacp_permission", "langacp_ask_permission", "langacp_resume_interrupt"} <= set(record.hooks)


async def test_read_runs_without_asking_and_edit_asks_with_four_scoped_options(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_once")
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 2, "b": 3}') == "end_turn"  # kind read: allowed
        assert client.permission_requests == []
        assert await agent.prompt(sid, _write(target)) == "end_turn"
        [request] = client.permission_requests
        call = request.tool_call
        assert call.kind == "edit" and call.title == "write_file"
        assert call.raw_input == {"path": str(target), "text": "hello"}
        assert call.content[0].type == "diff" and call.content[0].new_text == "hello"  # the proposed edit
        assert [o.kind for o in request.options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
        assert option_name(request, "allow_always") == "Always allow `write_file` in this session"
        assert option_name(request, "reject_always") == "Always reject `write_file` in this session"
        assert target.read_text() == "hello\n"
        assert statuses(agent, sid)[-1] == "completed"


async def test_a_rejection_fails_the_call_with_its_reason_and_the_turn_goes_on(tmp_path: Path) -> None:
    client = RecordingClient(answer="reject_once")
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _write(target)) == "end_turn"
        assert not target.exists()
        assert statuses(agent, sid)[-1] == "failed"
        assert "did not run: the user declined it" in failed_text(agent, sid)
        # The model read the tool message and answered: the turn did not hang.
        assert agent.client.text(sid).startswith("done: The call to write_file did not run: the user declined it")


async def test_cancelled_outcome_ends_the_turn_cancelled_and_the_tool_never_runs(tmp_path: Path) -> None:
    client = RecordingClient(answer=None)  # answers every request with "cancelled"
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _write(target)) == "cancelled"
        assert not target.exists()
        client.answer = "allow_once"
        agent.client.updates.clear()
        assert await agent.prompt(sid, "dangling") == "end_turn"  # the thread was repaired
        assert agent.client.text(sid) == "dangling: 0"
        assert not target.exists()


async def test_always_answers_are_remembered_for_the_tool(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_always")
    allowed, rejected = tmp_path / "a.txt", tmp_path / "r.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        await agent.prompt(sid, _write(allowed, "one"))
        await agent.prompt(sid, _write(allowed, "two"))
        assert len(client.permission_requests) == 1
        assert allowed.read_text() == "one\ntwo\n"
        # Another session does not inherit the answer.
        other = await agent.new_session()
        client.answer = "reject_always"
        await agent.prompt(other, _write(rejected, "x"))
        await agent.prompt(other, _write(rejected, "y"))
        assert len(client.permission_requests) == 2
        assert not rejected.exists()
        assert "always reject `write_file` in this session" in failed_text(agent, other)


async def test_always_for_a_command_covers_its_pattern_only(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_always")
    log = tmp_path / "commands.log"

    def run(command: str) -> str:
        return "tool run_command " + json.dumps({"command": command, "log": str(log)})

    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        await agent.prompt(sid, run("git status"))
        [first] = client.permission_requests
        assert first.tool_call.kind == "execute"
        assert option_name(first, "allow_always") == (
            "Always allow `git status` commands of `run_command` without options that write files or run "
            "programs (--output, --ext-diff, --textconv, …) in this session"
        )
        await agent.prompt(sid, run("git status --short"))  # the same subcommand: not asked
        assert len(client.permission_requests) == 1
        client.answer = "reject_once"
        await agent.prompt(sid, run("git stash"))  # another subcommand: asked
        await agent.prompt(sid, run("git status; rm -rf /"))  # chained: never covered by a pattern
        await agent.prompt(sid, run("git status --output=x"))  # an option that writes: asked
        assert len(client.permission_requests) == 4
        chained = client.permission_requests[-2]
        assert option_name(chained, "allow_always") == (
            "Always allow exactly this `run_command` command (`git status; rm -rf /`) in this session"
        )
        assert log.read_text().splitlines() == ["git status", "git status --short"]


async def test_unknown_option_id_counts_as_a_rejection(tmp_path: Path) -> None:
    client = RecordingClient(answer=lambda request: "allow_everything_forever")
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _write(target)) == "end_turn"
        assert not target.exists()
        assert "unknown option" in failed_text(agent, sid)
        await agent.prompt(sid, _write(target))  # nothing was remembered: asked again
        assert len(client.permission_requests) == 2 and not target.exists()
