"""The library path and the server path send the same updates for the same scenario.

``langacp serve langacp.testing.workspace:agent`` and ``examples/own_acp_agent.py`` (a hand-written
ACP agent on the SDK using ``langacp.lib``) run as subprocesses over real pipes with the same
plugins (langacp-tools, -content, -permissions, -modes), the same scripted model and the same
workspace. The ``session/update`` notifications each sends are compared in order, modulo the
session id, the workspace path, random content-block ids, and how streamed text was cut into chunks (consecutive message
or thought chunks are joined: how many tokens share a message depends on timing).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, image_block, text_block

from langacp.client import RecordingClient, spawn_agent
from langacp.testing.harness import serve
from langacp.testing.workspace import PIXEL_PNG

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "own_acp_agent.py"
PLUGINS = ["tools", "content", "permissions", "modes"]

SCENARIO: list[tuple[str, Any]] = [
    ("prompt", "think hi there"),
    ("prompt", 'tool read_file {"path": "README.md"}'),
    ("prompt", 'tool edit_file {"path": "x.py", "old_string": "b = 2", "new_string": "b = 3"}'),
    ("prompt", 'tool run_command {"command": "echo hi"}'),  # the client rejects this one
    ("prompt", "tool add {}"),  # a tool the workspace agent does not have: a failed call
    ("prompt", "image"),
    ("image", None),
    ("prompt", "tool screenshot {}"),
    ("mode", "readonly"),
    ("prompt", "sysprompt"),  # the model sees the mode's system prompt
    ("prompt", 'tool write_file {"path": "y.txt", "content": "no"}'),  # the mode refuses it
    ("mode", "agentic"),
    ("prompt", 'tool write_file {"path": "y.txt", "content": "yes"}'),
    ("cancel", 'tool run_command {"command": "sleep 5"}'),  # cancelled while it runs
    ("prompt", "dangling"),  # the thread was repaired: no tool call left unanswered
    ("prompt", "error the model failed"),
    ("prompt", "truncated"),
]


def _answer(request: Any) -> str | None:
    """Allow everything but commands."""
    kind = "reject_once" if request.tool_call.kind == "execute" else "allow_once"
    return next((o.option_id for o in request.options if o.kind == kind), None)


def _workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "README.md").write_text("# Demo\n", encoding="utf-8")
    (root / "x.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    return root


async def _cancelled(conn: Any, client: RecordingClient, session_id: str, text: str) -> str:
    """Prompt, cancel once a tool runs; returns the stop reason."""
    running = len([u for u in client.of(session_id, "tool_call_update") if u.status == "in_progress"])
    turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block(text)]))
    await client.wait_for(
        lambda _: len([u for u in client.of(session_id, "tool_call_update") if u.status == "in_progress"]) > running
    )
    await conn.cancel(session_id=session_id)
    return str((await turn).stop_reason)


async def _run(
    conn: Any, client: RecordingClient, cwd: Path, scenario: list[tuple[str, Any]] = SCENARIO, **session: Any
) -> tuple[str, list[str], set[int]]:
    """Play the scenario; returns the session id, what each step answered and where each step's updates start."""
    await conn.initialize(protocol_version=1)
    session_id = (await conn.new_session(cwd=str(cwd), **session)).session_id
    answers, boundaries = [], set()
    for step, value in scenario:
        boundaries.add(len(client.updates))  # text is not joined across steps
        try:
            if step == "cancel":
                answers.append(await _cancelled(conn, client, session_id, value))
                continue
            if step == "close":
                await conn.close_session(session_id=session_id)
                answers.append("closed")
                continue
            if step == "mode":
                seen = len(client.of(session_id, "current_mode_update"))
                await conn.set_session_mode(session_id=session_id, mode_id=value)
                # The mode's updates may arrive just before or just after the response: wait for
                # them, so that they belong to this step on both paths.
                await client.wait_for(lambda _, seen=seen: len(client.of(session_id, "current_mode_update")) > seen)
                answers.append("mode set")
                continue
            prompt = (
                [text_block("what is this?"), image_block(PIXEL_PNG, "image/png")]
                if step == "image"
                else [text_block(value)]
            )
            answers.append(str((await conn.prompt(session_id=session_id, prompt=prompt)).stop_reason))
        except RequestError as exc:
            answers.append(f"error {exc.code}")
    return session_id, answers, boundaries


LC_ID = re.compile(r'"lc_[0-9a-f-]{36}"')
RUN_ID = re.compile(r'"lc_run--[0-9a-f-]{36}(/thought)?"')
"""A message id from a run's id (each run has its own): compared by shape."""
"""Content-block ids LangChain generates at random."""


def _normalised(client: RecordingClient, session_id: str, cwd: Path, boundaries: set[int]) -> list[dict[str, Any]]:
    """The session's updates as JSON, text chunks joined, the workspace path replaced."""
    out: list[dict[str, Any]] = []
    for index, (sid, update) in enumerate(client.updates):
        if index in boundaries:
            out.append({"step": True})
        if sid != session_id:
            continue
        dumped = update.model_dump_json(exclude_none=True, by_alias=True).replace(str(cwd), "<cwd>")
        data = json.loads(RUN_ID.sub(r'"lc_run--<id>\1"', LC_ID.sub('"lc_<id>"', dumped)))
        kind = data.get("sessionUpdate")
        text = data.get("content", {}).get("text") if kind in ("agent_message_chunk", "agent_thought_chunk") else None
        if isinstance(text, str) and out and out[-1].get("sessionUpdate") == kind and "text" in out[-1]["content"]:
            out[-1]["content"]["text"] += text
            continue
        out.append(data)
    return out


def _permissions(client: RecordingClient, cwd: Path) -> list[str]:
    return [
        r.tool_call.model_dump_json(exclude_none=True).replace(str(cwd), "<cwd>") for r in client.permission_requests
    ]


@asynccontextmanager
async def _library(
    tmp_path: Path, client: RecordingClient, *args: str, plugins: list[str] = PLUGINS
) -> AsyncIterator[Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # no user configuration leaks in
    command = [sys.executable, str(EXAMPLE), *(a for name in plugins for a in ("-p", name)), *args]
    with (tmp_path / "library.stderr").open("w") as stderr:
        async with spawn_agent(command, client, env=env, stderr=stderr) as (conn, _process):
            yield conn


async def test_library_and_server_send_the_same_updates(tmp_path: Path) -> None:
    server_client, library_client = RecordingClient(answer=_answer), RecordingClient(answer=_answer)
    server_cwd, library_cwd = _workspace(tmp_path / "server"), _workspace(tmp_path / "library")
    async with serve(
        "langacp.testing.workspace:agent",
        plugins=PLUGINS,
        client=server_client,
        env={"XDG_CONFIG_HOME": str(tmp_path / "config")},
    ) as server:
        server_sid, server_answers, server_steps = await _run(server.conn, server_client, server_cwd)
    async with _library(tmp_path, library_client) as conn:
        library_sid, library_answers, library_steps = await _run(conn, library_client, library_cwd)

    assert library_answers == server_answers
    assert server_answers[:4] == ["end_turn"] * 4 and "error -32603" in server_answers
    assert "cancelled" in server_answers
    server_updates = _normalised(server_client, server_sid, server_cwd, server_steps)
    library_updates = _normalised(library_client, library_sid, library_cwd, library_steps)
    assert len(server_updates) > 60
    assert library_updates == server_updates
    assert any(
        u.get("content") == {"text": "dangling: 0", "type": "text"} and u["sessionUpdate"] == "agent_message_chunk"
        for u in server_updates
    )
    assert _permissions(library_client, library_cwd) == _permissions(server_client, server_cwd)

    # The scenario exercised what the plugins add, so the equality above means something.
    kinds = {u.get("kind") for u in server_updates if u.get("sessionUpdate") == "tool_call_update"}
    assert {"read", "edit", "execute"} <= kinds
    assert any(c.get("type") == "diff" for u in server_updates for c in u.get("content") or [] if isinstance(c, dict))
    images = [u["content"] for u in server_updates if u.get("sessionUpdate") == "agent_message_chunk"]
    assert {"type": "image", "mimeType": "image/png", "data": PIXEL_PNG} in images
    assert any(u.get("sessionUpdate") == "current_mode_update" for u in server_updates)
    assert any(
        "You are in read-only mode" in u.get("content", {}).get("text", "")
        for u in library_updates
        if u.get("sessionUpdate") == "agent_message_chunk"
    )
    assert (library_cwd / "x.py").read_text() == "a = 1\nb = 3\n"
    assert (library_cwd / "y.txt").read_text() == "yes"  # refused in readonly mode, written in agentic
    assert [r.tool_call.title for r in library_client.permission_requests][:2] == ["Edit x.py", "Run `echo hi`"]


@pytest.mark.parametrize("snapshots", ["initial", "final", "all"])
async def test_state_snapshots_reach_the_client(tmp_path: Path, snapshots: str) -> None:
    client = RecordingClient()
    cwd = _workspace(tmp_path / "work")
    async with _library(tmp_path, client, "--snapshots", snapshots) as conn:
        await conn.initialize(protocol_version=1)
        session_id = (await conn.new_session(cwd=str(cwd))).session_id
        await conn.prompt(session_id=session_id, prompt=[text_block('tool read_file {"path": "README.md"}')])
        await conn.prompt(session_id=session_id, prompt=[text_block("echo again")])

    snaps = [params for method, params in client.notifications if method == "langacp/state_snapshot"]
    assert {s["sessionId"] for s in snaps} == {session_id}
    expected = {
        "initial": [("initial", 1), ("initial", 2)],
        "final": [("final", 1), ("final", 2)],
        "all": [("initial", 1), ("model", 1), ("model", 1), ("final", 1), ("initial", 2), ("model", 2), ("final", 2)],
    }[snapshots]
    assert [(s["kind"], s["turn"]) for s in snaps] == expected
    last = snaps[-1]["state"]
    assert last["acp_turns"] == 2
    texts = [m["data"]["content"] for m in last["messages"] if m["type"] in ("human", "ai")]
    if snaps[-1]["kind"] == "final":
        assert texts[-2:] == ["echo again", "again"] and "# Demo" in json.dumps(last["messages"])


async def test_human_in_the_loop_form_approves_and_rejects_through_the_permission_flow(tmp_path: Path) -> None:
    """``ACPPermissionMiddleware(interrupt=True)``: the graph interrupts, langacp-permissions asks the client,
    the graph resumes with its decision; a rejection reaches the model, which answers with it."""
    client = RecordingClient(answer=_answer)
    cwd = _workspace(tmp_path / "work")
    command = [sys.executable, str(EXAMPLE), "-p", "tools", "-p", "permissions", "--hitl"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    with (tmp_path / "hitl.stderr").open("w") as stderr:
        async with spawn_agent(command, client, env=env, stderr=stderr) as (conn, _process):
            await conn.initialize(protocol_version=1)
            sid = (await conn.new_session(cwd=str(cwd))).session_id
            edit = 'tool edit_file {"path": "x.py", "old_string": "b = 2", "new_string": "b = 3"}'
            assert (await conn.prompt(session_id=sid, prompt=[text_block(edit)])).stop_reason == "end_turn"
            run = 'tool run_command {"command": "touch ran.txt"}'
            assert (await conn.prompt(session_id=sid, prompt=[text_block(run)])).stop_reason == "end_turn"

    assert (cwd / "x.py").read_text() == "a = 1\nb = 3\n"  # approved
    assert not (cwd / "ran.txt").exists()  # rejected: never ran
    requests = client.permission_requests
    assert [r.tool_call.title for r in requests] == ["Edit x.py", "Run `touch ran.txt`"]
    announced = [u.tool_call_id for u in client.of(sid, "tool_call")]
    assert [r.tool_call.tool_call_id for r in requests] == announced  # the request names the call the editor shows
    failed = [u for u in client.of(sid, "tool_call_update") if u.status == "failed"]
    assert [u.tool_call_id for u in failed] == [announced[1]]
    assert "the user declined it" in failed[0].content[0].content.text
    assert client.text(sid).endswith(f"done: {failed[0].content[0].content.text}")  # the model got it, re-planned


MCP_SERVER = REPO / "plugins" / "mcp" / "tests" / "mcp_server.py"
MCP_SCENARIO: list[tuple[str, Any]] = [
    ("prompt", 'tool media__add {"a": 2, "b": 3}'),
    ("prompt", "tool media__picture {}"),
    ("prompt", 'tool media__fail {"message": "disk on fire"}'),
    ("prompt", "tool media__pid {}"),
    ("close", None),
]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z" if Path(f"/proc/{pid}/stat").exists() else True


async def test_mcp_tools_are_loaded_and_reported_as_the_server_does(tmp_path: Path) -> None:
    from acp.schema import McpServerStdio

    pytest.importorskip("langacp_mcp")
    plugins = ["mcp", "tools", "content"]
    server_entry = McpServerStdio(name="media", command=sys.executable, args=[str(MCP_SERVER), "stdio"], env=[])
    server_client, library_client = RecordingClient(), RecordingClient()
    server_cwd, library_cwd = _workspace(tmp_path / "server"), _workspace(tmp_path / "library")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with serve("langacp.testing.workspace:agent", plugins=plugins, client=server_client, env=env) as server:
        server_sid, server_answers, server_steps = await _run(
            server.conn, server_client, server_cwd, MCP_SCENARIO, mcp_servers=[server_entry]
        )
    async with _library(tmp_path, library_client, plugins=plugins) as conn:
        library_sid, library_answers, library_steps = await _run(
            conn, library_client, library_cwd, MCP_SCENARIO, mcp_servers=[server_entry]
        )
        pid = int(library_client.of(library_sid, "tool_call_update")[-1].content[0].content.text)
        for _ in range(150):  # closing the session stops its MCP server
            if not _alive(pid):
                break
            await asyncio.sleep(0.1)
        assert not _alive(pid)

    assert library_answers == server_answers == ["end_turn"] * 4 + ["closed"]
    server_updates = _normalised(server_client, server_sid, server_cwd, server_steps)
    library_updates = _normalised(library_client, library_sid, library_cwd, library_steps)
    assert library_updates[:-2] == server_updates[:-2]  # the last call's result holds the server's pid
    assert [u.get("status") for u in library_updates[-2:]] == [u.get("status") for u in server_updates[-2:]]
    titles = {u.get("title") for u in library_updates}
    assert {"add (media)", "picture (media)"} <= titles
    picture = next(u for u in library_updates if u.get("status") == "completed" and "image" in json.dumps(u))
    assert [c["content"]["type"] for c in picture["content"]] == ["text", "image"]
    assert picture["content"][1]["content"]["mimeType"] == "image/png"
