"""The plugins' tools made once for every session (client-tools', ``switch_mode``, ``set_session_title``)
attacked over real pipes: two sessions in two directories run their turns at the same time, and a
call in one never reads, writes, runs, names or switches anything of the other."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from acp import text_block

from langacp.client import RecordingClient, spawn_agent
from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent, serve

TARGET = "langacp.testing.agent:shared_model_agent"
PLUGINS = ["client-tools", "tools", "permissions", "modes", "titles"]


def _allow(request: Any) -> str:
    kinds = {option.kind: option.option_id for option in request.options}
    return str(kinds.get("allow_always") or kinds["allow_once"])


def _outputs(agent: ServedAgent, session_id: str) -> list[str]:
    return [
        json.dumps(u.raw_output, default=str)
        for u in agent.client.of(session_id)
        if u.session_update == "tool_call_update" and u.raw_output is not None
    ]


def _call(name: str, **args: Any) -> str:
    return f"tool {name} {json.dumps(args)}"


async def test_two_sessions_tools_never_act_in_each_other(tmp_path: Path) -> None:
    dirs = [tmp_path / "a", tmp_path / "b"]
    for name, work in zip("ab", dirs, strict=True):
        work.mkdir()
        (work / "note.txt").write_text(f"secret of {name}\n")
    client = EditorClient(answer=_allow, fs=False, terminal=False)
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "LANGACP_TEST_TOKEN_DELAY": "0.002"}
    async with serve(TARGET, plugins=PLUGINS, client=client, env=env, cwd=dirs[0]) as agent:
        await agent.initialize()
        sids = [await agent.new_session(str(work)) for work in dirs]
        await agent.conn.set_session_mode(session_id=sids[0], mode_id="agentic")
        await agent.conn.set_session_mode(session_id=sids[1], mode_id="agentic")
        plans = []
        for i, name in enumerate("ab"):
            other = dirs[1 - i]
            plans.append(
                [
                    _call("read_file", path="note.txt"),
                    _call("read_file", path=str(other / "note.txt")),  # the other's file, by its absolute path
                    _call("write_file", path="out.txt", content=f"written by {name}"),
                    _call("write_file", path=str(other / "out.txt"), content=f"{name} was here"),
                    _call("run_command", command="pwd > where.txt"),
                    _call("run_command", command="touch ran.txt", cwd=str(other)),
                    _call("set_session_title", title=f"Session {name}"),
                ]
            )
        for turn_a, turn_b in zip(*plans, strict=True):  # each step at the same time in both sessions
            stops = await asyncio.gather(agent.prompt(sids[0], turn_a), agent.prompt(sids[1], turn_b))
            assert stops == ["end_turn", "end_turn"]
        switched = await agent.prompt(sids[0], _call("switch_mode", mode_id="readonly", reason="done"))
        assert switched == "end_turn"
        outputs = [_outputs(agent, sid) for sid in sids]
        titles = [[u.title for u in agent.client.of(sid, "session_info_update") if u.title] for sid in sids]
        modes = [[u.current_mode_id for u in agent.client.of(sid, "current_mode_update")] for sid in sids]

    for i, name in enumerate("ab"):
        work, other_name = dirs[i], "ba"[i]
        assert (work / "out.txt").read_text() == f"written by {name}"  # never the other's write
        assert (work / "where.txt").read_text().strip() == str(work)
        assert not (work / "ran.txt").exists()
        assert any(f"secret of {name}" in out for out in outputs[i])
        assert not any(f"secret of {other_name}" in out for out in outputs[i]), outputs[i]
        assert [t for t in titles[i] if t.startswith("Session ")] == [f"Session {name}"]
    assert modes == [["agentic", "readonly"], ["agentic"]]  # only the session that called switch_mode switched


async def test_the_library_path_gives_the_shared_tools_their_session(tmp_path: Path) -> None:
    """A hand-written ACP agent on ``langacp.lib`` (``examples/own_acp_agent.py``): its turns enter
    the running turn too, so ``set_session_title`` and ``switch_mode`` act for their own session."""
    example = Path(__file__).resolve().parents[1] / "examples" / "own_acp_agent.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    client = RecordingClient(answer=lambda request: request.options[0].option_id)
    dirs = [tmp_path / "a", tmp_path / "b"]
    command = [sys.executable, str(example), "-p", "titles", "-p", "modes"]
    with (tmp_path / "stderr").open("w") as stderr:
        async with spawn_agent(command, client, env=env, stderr=stderr) as (conn, _process):
            await conn.initialize(protocol_version=1)
            sids = []
            for work in dirs:
                work.mkdir()
                sids.append((await conn.new_session(cwd=str(work), mcp_servers=[])).session_id)
            for sid, name in zip(sids, "ab", strict=True):
                title = _call("set_session_title", title=f"Library {name}")
                reply = await conn.prompt(session_id=sid, prompt=[text_block(title)])
                assert reply.stop_reason == "end_turn"
            switch = _call("switch_mode", mode_id="readonly", reason="done")
            assert (await conn.prompt(session_id=sids[0], prompt=[text_block(switch)])).stop_reason == "end_turn"
    for sid, name in zip(sids, "ab", strict=True):
        titles = [u.title for u in client.of(sid, "session_info_update") if u.title]
        assert [t for t in titles if t.startswith("Library ")] == [f"Library {name}"], titles
    modes = [[u.current_mode_id for u in client.of(sid, "current_mode_update")] for sid in sids]
    assert modes == [["readonly"], []]
