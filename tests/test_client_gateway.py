"""Gateway + ``langacp attach``: an editor attaches mid-session to an agent a ConnectionManager
runs (langacp serve with langacp-permissions and langacp-client-tools), answers its permission
requests and serves its file writes; once it detaches, the local policy and handler answer again."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from langacp.client import ConnectionManager, Gateway, PermissionPolicy, RecordingHandler
from langacp.client.testing_client import spawn_agent
from langacp.testing.editor import EditorClient

pytestmark = pytest.mark.asyncio

AGENT = [sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent"]
AGENT += ["-p", "permissions", "-p", "client-tools"]
WRITE = 'tool write_file {"path": "%s", "content": "%s"}'


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1",
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


async def test_attach_and_detach_mid_session(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    rec = RecordingHandler()
    policy = PermissionPolicy(allow=["edit"], ask_else="reject")
    async with ConnectionManager() as manager, Gateway(manager, tmp_path / "sockets") as gateway:
        conn = await manager.connect(
            "helper",
            command=AGENT[0],
            args=AGENT[1:],
            cwd=work,
            env=_env(tmp_path),
            handler=rec,
            permission_policy=policy,
        )
        sid = (await conn.new_session(work)).session_id
        # alone: the policy rejects what no rule allows; file writes are served locally
        assert "declined" in (await conn.prompt(sid, 'tool add {"a": 1, "b": 2}')).text
        await conn.prompt(sid, WRITE % ("local.txt", "written here"))
        assert (work / "local.txt").read_text() == "written here"

        path = await gateway.open("helper")
        assert path.parent == tmp_path / "sockets" and path.stat().st_mode & 0o077 == 0  # this user only
        editor = EditorClient(answer="allow_once")
        attach = [sys.executable, "-m", "langacp.cli", "attach", "helper", "--dir", str(path.parent)]
        async with spawn_agent(attach, editor, env=dict(os.environ)) as (upstream, _process):
            init = await upstream.initialize(protocol_version=1, client_capabilities=editor.client_capabilities)
            assert init == conn.init_response
            await upstream.load_session(cwd=str(work), session_id=sid, mcp_servers=[])  # lease: no replay
            assert editor.of(sid) == []
            # the program prompts; the attached editor sees the turn and answers its permission request
            assert (await conn.prompt(sid, 'tool add {"a": 1, "b": 2}')).text == "done: 3"
            assert [r.tool_call.title for r in editor.permission_requests] == ["add"]
            # the editor's copy of the turn travels through the attach process: it may land just after
            await editor.wait_for(lambda _updates: "done: 3" in editor.text(sid))
            assert "done: 3" in editor.text(sid)
            # file writes go to the editor, which declared fs
            await conn.prompt(sid, WRITE % ("editor.txt", "via the editor"))
            assert "fs/write_text_file" in editor.methods()
            assert (work / "editor.txt").read_text() == "via the editor"
            # the editor can prompt the same session
            from acp import text_block

            response = await upstream.prompt(session_id=sid, prompt=[text_block("echo from the editor")])
            assert response.stop_reason == "end_turn" and "from the editor" in editor.text(sid)
            listed = await upstream.list_sessions(cwd=str(work))
            assert sid in [s.session_id for s in listed.sessions]
        # detached: back to the local policy
        for _ in range(100):
            if conn.router.upstream is None:
                break
            await asyncio.sleep(0.05)
        assert conn.router.upstream is None
        assert "declined" in (await conn.prompt(sid, 'tool add {"a": 4, "b": 4}')).text
        sources = [(d.title, d.source, d.decision) for d in policy.decisions if d.title == "add"]
        assert sources == [("add", "ask_else", "reject"), ("add", "upstream", "allow"), ("add", "ask_else", "reject")]
        types = set(rec.types())
        assert {"file:write", "permission:request", "permission:result", "tool:call", "tool:result"} <= types
        assert [e["path"] for e in rec.of("file:write")] == [str(work / "local.txt")]  # the editor wrote the other
    assert not path.exists()


async def test_attach_without_a_gateway(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "langacp.cli",
        "attach",
        "nobody",
        "--dir",
        str(tmp_path),
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
    )
    _, err = await process.communicate()
    assert process.returncode == 1 and b"no gateway at" in err


async def test_attach_ends_quietly_when_the_editor_goes(tmp_path: Path) -> None:
    """The editor closes its pipes: ``langacp attach`` exits 0 without a traceback (the editor logs stderr)."""
    async with ConnectionManager() as manager, Gateway(manager, tmp_path / "sockets") as gateway:
        await manager.connect("helper", command=AGENT[0], args=AGENT[1:], cwd=tmp_path, env=_env(tmp_path))
        path = await gateway.open("helper")
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "langacp.cli", "attach", "helper", "--dir", str(path.parent)),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(process.communicate(b""), 30)  # stdin closed at once
    assert process.returncode == 0 and b"Traceback" not in err, err.decode()


async def test_langacp_chat_attaches_to_a_running_agent(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    async with ConnectionManager() as manager, Gateway(manager, tmp_path / "sockets") as gateway:
        conn = await manager.connect("helper", command=AGENT[0], args=AGENT[1:], cwd=work, env=_env(tmp_path))
        seen: list[str] = []
        conn.add_listener(lambda note: seen.append(note.update.session_update))
        path = await gateway.open("helper")
        chat = [sys.executable, "-m", "langacp.cli", "chat", "--prompt", "echo through the gateway", "--json"]
        chat += ["--", sys.executable, "-m", "langacp.cli", "attach", "helper", "--dir", str(path.parent)]
        process = await asyncio.create_subprocess_exec(
            *chat, cwd=work, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, err.decode()
        lines = [json.loads(line) for line in out.decode().splitlines()]
        assert lines[-1]["stopReason"] == "end_turn"
        text = "".join(
            line["update"]["content"]["text"]
            for line in lines
            if "update" in line and line["update"]["sessionUpdate"] == "agent_message_chunk"
        )
        assert text == "through the gateway"
        assert list(conn.sessions) == [lines[-1]["sessionId"]]  # chat's session/new ran on the managed agent
        assert "agent_message_chunk" in seen  # and the program saw the turn too
