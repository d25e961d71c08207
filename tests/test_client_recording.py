"""RecordingHandler on langacp's default agent with its plugins: every kind of event that agent
produces (thoughts, plans, file reads and writes through the client, terminals, permissions,
mode changes, usage) is recorded, in memory and as JSON lines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from langacp.client import AcpConnection, PermissionPolicy, RecordingHandler, load_activity

pytestmark = pytest.mark.asyncio

PLUGINS = ["client-tools", "permissions", "plans", "modes", "usage", "tools"]


async def test_default_agent_activity_is_recorded(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "README.md").write_text("# Hello\n\nA project.\n")
    path = tmp_path / "activity.jsonl"
    rec = RecordingHandler(path)
    policy = PermissionPolicy(allow=["edit", "execute"], ask_else="reject")
    env = {
        "LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1",
        "LANGACP_DEMO_DELAY": "0",
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    args = ["-m", "langacp.cli", "serve", *(arg for name in PLUGINS for arg in ("-p", name))]
    async with AcpConnection(handler=rec, permission_policy=policy) as conn:
        await conn.spawn(sys.executable, args, cwd=work, env=env)
        await conn.initialize()
        info = await conn.new_session(work)
        sid = info.session_id
        for prompt in ("read README.md", "write hello to notes.txt", "run ls", "make a plan for a release"):
            result = await conn.prompt(sid, prompt)
            assert result.stop_reason == "end_turn", (prompt, result.text)
        assert info.modes is not None
        other = next(m.id for m in info.modes.available_modes if m.id != info.modes.current_mode_id)
        await conn.set_mode(sid, other)
        await conn.prompt(sid, "list files")
    assert (work / "notes.txt").read_text().strip() == "hello"
    produced = set(rec.types())
    expected = {"prompt:sent", "message:chunk", "thought:chunk", "tool:call", "tool:result", "plan:update"}
    expected |= {"file:read", "file:write", "permission:request", "permission:result", "mode:change"}
    expected |= {"terminal:create", "terminal:output", "terminal:exit", "message:complete"}
    assert produced == expected  # all but terminal:kill (a command that outlives its turn; see test_client_ts_agent)
    assert load_activity(path) == rec.events
    assert rec.of("file:read")[0]["path"] == str(work / "README.md")
    assert rec.of("file:write")[0] == {**rec.of("file:write")[0], "path": str(work / "notes.txt")}
    assert "hello" in rec.of("file:write")[0]["content"]
    assert rec.of("terminal:create")[0]["command"]
    assert "README.md" in "".join(e["output"] for e in rec.of("terminal:output"))
    assert rec.of("mode:change")[-1]["modeId"] == other
    assert [e["stopReason"] for e in rec.of("message:complete")] == ["end_turn"] * 5
    decisions = {(e["decision"], e["source"]) for e in rec.of("permission:result")}
    assert decisions <= {("allow", "policy")}, decisions
