"""The model's paths stay inside the session's directories: ``..``, absolute paths, ``~``, links, FIFOs.

Each refused call fails before the user is asked (confinement is decided first), and nothing
is written outside. A FIFO in the workspace is refused without waiting on it, so it cannot
freeze the agent: another session keeps streaming meanwhile.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from security_support import call, served

from langacp.client import RecordingClient
from langacp.testing.editor import EditorClient


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET\n")
    os.symlink(outside, work / "link_out")
    os.symlink(outside / "secret.txt", work / "secret_link")
    return work, outside


async def test_paths_outside_the_roots_are_refused_before_asking(tmp_path: Path) -> None:
    work, outside = _workspace(tmp_path)
    client = EditorClient(answer="allow_once", fs=False, terminal=False)
    attacks = [
        ("write_file", {"path": "../escape.txt", "content": "x"}),
        ("write_file", {"path": str(outside / "abs.txt"), "content": "x"}),
        ("write_file", {"path": "link_out/via_link.txt", "content": "x"}),
        ("write_file", {"path": "secret_link", "content": "overwritten"}),
        ("write_file", {"path": "~/home.txt", "content": "x"}),  # HOME is tmp_path: outside the cwd
        ("write_file", {"path": "~root/x.txt", "content": "x"}),
        ("edit_file", {"path": "secret_link", "old_string": "SECRET", "new_string": "gone"}),
        ("read_file", {"path": "../outside/secret.txt"}),
        ("read_file", {"path": "secret_link"}),
        ("run_command", {"command": "touch ran.txt", "cwd": ".."}),
        ("run_command", {"command": "touch ran.txt", "cwd": "link_out"}),
    ]
    async with served(work, tmp_path, client) as agent:
        sid = await agent.start()
        results = [await call(agent, sid, name, **args) for name, args in attacks]
        # ~ is the home directory, confined like any path: inside the cwd it is asked about and written.
        tilde = await call(agent, sid, "write_file", path="~/work/tilde.txt", content="ok\n")
    for (name, args), result in zip(attacks, results, strict=True):
        assert result["status"] == "failed", (name, args)
        assert "did not run" in str(result["raw_output"]), (name, args, result["raw_output"])
        assert "SECRET" not in str(result["raw_output"])
    [asked] = client.permission_requests  # only the call that was not refused
    assert asked.tool_call.title == "Write tilde.txt"
    assert [loc.path for loc in asked.tool_call.locations or []] == [str(work / "tilde.txt")]
    assert tilde["status"] == "completed" and (work / "tilde.txt").read_text() == "ok\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "SECRET\n"
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "home.txt").exists()
    assert not (tmp_path / "ran.txt").exists() and not (outside / "ran.txt").exists()


async def test_a_fifo_is_refused_and_never_freezes_other_sessions(tmp_path: Path) -> None:
    work, _ = _workspace(tmp_path)
    os.mkfifo(work / "pipe")
    client = RecordingClient(answer="reject_once")
    async with served(work, tmp_path, client) as agent:
        first = await agent.start()
        second = await agent.new_session()

        async def hit_the_fifo() -> list[dict[str, object]]:
            return [
                await call(agent, first, "read_file", path="pipe"),
                await call(agent, first, "write_file", path="pipe", content="x"),
                await call(agent, first, "edit_file", path="pipe", old_string="a", new_string="b"),
                await call(agent, first, "save_note", path="pipe", content="x"),  # langacp-tools' diff preview
            ]

        async def stream() -> str:
            return await agent.prompt(second, "long 400")

        fifo, streamed = await asyncio.wait_for(asyncio.gather(hit_the_fifo(), stream()), 120)
    assert streamed == "end_turn"
    assert client.text(second).split()[-1] == "w399"
    for result in fifo[:3]:
        assert result["status"] == "failed"
        assert "not a regular file" in str(result["raw_output"])
    assert fifo[3]["status"] == "failed"  # the app's tool: asked (edit kind) and rejected, after a preview
    assert [r.tool_call.title for r in client.permission_requests] == [
        "Write pipe"
    ]  # save_note, titled by langacp-tools
