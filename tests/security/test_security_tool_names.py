"""A plugin's tool never replaces the app's own tool of the same name (every plugin installed).

langacp-client-tools contributes ``read_file`` / ``write_file`` / ``edit_file`` and
langacp-modes ``switch_mode``; an app with tools of those names keeps its own, and stderr
says once which plugin tool was left out.
"""

from __future__ import annotations

import json
from pathlib import Path

from security_support import call, served

from langacp.testing.editor import EditorClient


async def test_the_apps_tools_win_a_name_clash(tmp_path: Path) -> None:
    work, trace = tmp_path / "work", tmp_path / "trace.jsonl"
    work.mkdir()
    (work / "notes.txt").write_text("original\n")
    client = EditorClient(answer="allow_once")
    env = {"SECURITY_TRACE": str(trace)}
    async with served(work, tmp_path, client, target="clashing", env=env) as agent:
        sid = await agent.start()
        await agent.new_session()  # a second session: still one warning per clash
        results = [
            await call(agent, sid, "write_file", path="notes.txt", content="replaced\n"),
            await call(agent, sid, "read_file", path="notes.txt"),
            await call(agent, sid, "edit_file", path="notes.txt", old_string="original", new_string="x"),
            await call(agent, sid, "switch_mode", mode_id="read-only"),
        ]
        stderr = agent.stderr()
    ran = [json.loads(line)[0] for line in trace.read_text().splitlines()]
    assert ran == ["write_file", "read_file", "edit_file", "switch_mode"]
    assert all(r["status"] == "completed" and "the app's" in str(r["raw_output"]) for r in results)
    # The plugins' tools never ran: the file is untouched and the editor was never asked to read or write.
    assert (work / "notes.txt").read_text() == "original\n"
    assert not [m for m in client.methods() if m.startswith("fs/")]
    for name, plugin in [
        ("write_file", "langacp_client_tools"),
        ("read_file", "langacp_client_tools"),
        ("edit_file", "langacp_client_tools"),
        ("switch_mode", "langacp_modes"),
    ]:
        warnings = [line for line in stderr.splitlines() if f"plugin tool '{name}'" in line]
        assert len(warnings) == 1, warnings
        assert plugin in warnings[0] and "security_agent" in warnings[0] and "left out" in warnings[0]
