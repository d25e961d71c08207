"""langacp-modes together with langacp-permissions and langacp-tools, over real pipes.

The mode's limits hold whatever the permission policy or the user's remembered answers say;
the mode's own rules are applied through the policy of langacp-permissions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langacp.client import RecordingClient
from langacp.testing import calls
from langacp.testing.harness import ServedAgent, serve

AGENT = str(Path(__file__).resolve().parents[1] / "plugins" / "modes" / "tests" / "modes_agent.py") + ":agent"


@asynccontextmanager
async def served(tmp_path: Path, client: RecordingClient, user_config: str = "") -> AsyncIterator[ServedAgent]:
    config = tmp_path / "config" / "langacp" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(user_config, encoding="utf-8")
    (tmp_path / "project").mkdir(exist_ok=True)
    async with serve(
        AGENT,
        plugins=["modes", "permissions", "tools"],
        env={"XDG_CONFIG_HOME": str(tmp_path / "config")},
        client=client,
        cwd=tmp_path / "project",
    ) as agent:
        yield agent


def call(name: str, **args: Any) -> str:
    """The test agent's prompt that makes one tool call."""
    return calls.tool_prompt(name, **args)


def failed_text(agent: ServedAgent, sid: str) -> str:
    """Why this session's failed tool calls did not run."""
    return calls.failed_text(agent.client.of(sid))


async def test_readonly_holds_even_where_the_user_policy_allows(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_once")
    out, log = tmp_path / "out.txt", tmp_path / "commands.log"
    policy = '[permissions.kinds]\nedit = "allow"\nexecute = "allow"\n'
    async with served(tmp_path, client, policy) as agent:
        sid = await agent.start()
        await agent.prompt(sid, call("write_file", path=str(out), text="interactive"))
        assert out.read_text() == "interactive\n" and client.permission_requests == []  # the user allows edits
        await agent.conn.set_session_mode(session_id=sid, mode_id="readonly")
        await agent.prompt(sid, call("write_file", path=str(out), text="readonly"))
        await agent.prompt(sid, call("run_command", command="make deploy", log=str(log)))
        assert out.read_text() == "interactive\n" and not log.exists()  # never ran
        assert client.permission_requests == []
        text = failed_text(agent, sid)
        assert "Read-only mode, where `write_file` (kind edit) may not run" in text
        assert "`run_command` (kind execute)" in text
        await agent.prompt(sid, call("read_file", path=str(out)))
        assert agent.client.text(sid).endswith("done: interactive\n")


async def test_an_always_allow_from_another_mode_does_not_open_readonly(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_always")
    out = tmp_path / "out.txt"
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        await agent.prompt(sid, call("write_file", path=str(out), text="one"))
        assert len(client.permission_requests) == 1  # interactive, default policy: asked, always allowed
        assert [o.kind for o in client.permission_requests[0].options][:2] == ["allow_once", "allow_always"]
        await agent.conn.set_session_mode(session_id=sid, mode_id="readonly")
        await agent.prompt(sid, call("write_file", path=str(out), text="two"))
        assert out.read_text() == "one\n"
        await agent.conn.set_session_mode(session_id=sid, mode_id="interactive")
        await agent.prompt(sid, call("write_file", path=str(out), text="three"))
        assert out.read_text() == "one\nthree\n" and len(client.permission_requests) == 1  # remembered


async def test_agentic_asks_nothing_but_a_deny_rule_still_denies(tmp_path: Path) -> None:
    client = RecordingClient(answer="reject_once")  # would refuse anything it were asked about
    out, log = tmp_path / "out.txt", tmp_path / "commands.log"
    async with served(tmp_path, client, '[permissions.tools]\n"run_*" = "deny"\n') as agent:
        sid = await agent.start()
        await agent.conn.set_session_mode(session_id=sid, mode_id="agentic")
        await agent.prompt(sid, call("write_file", path=str(out), text="x"))
        await agent.prompt(sid, call("run_command", command="ls", log=str(log)))
        assert out.read_text() == "x\n" and not log.exists()
        assert client.permission_requests == []
        assert 'tools."run_*" = "deny"' in failed_text(agent, sid)


async def test_planning_leaves_through_the_switch_tool_only_when_the_user_agrees(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_once")
    out = tmp_path / "out.txt"
    async with served(tmp_path, client) as agent:
        sid = await agent.start()
        await agent.conn.set_session_mode(session_id=sid, mode_id="planning")
        await agent.prompt(sid, call("write_file", path=str(out), text="x"))
        assert not out.exists() and client.permission_requests == []
        await agent.prompt(sid, call("switch_mode", mode_id="interactive", reason="the plan"))
        [request] = client.permission_requests
        assert [o.option_id for o in request.options] == ["switch", "stay"]  # the mode's own request
        await agent.client.wait_for(
            lambda _: [u.current_mode_id for u in agent.client.of(sid, "current_mode_update")][-1:] == ["interactive"]
        )
        await agent.prompt(sid, call("write_file", path=str(out), text="x"))
        assert out.read_text() == "x\n" and len(client.permission_requests) == 2  # interactive: asked (edit)
        assert client.permission_requests[1].tool_call.kind == "edit"
