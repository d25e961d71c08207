"""Sessions built alike share one compiled graph, and still never see one another's objects.

``langacp serve`` compiles a factory's graph once per configuration (``langacp.shared_graphs``):
every session with the same model, prompt, tools and middleware classes uses the graph, each
session's own model, middleware and tools bound to it while its turn runs. Here the factory
form with the plugins whose contributions are made per session (client-tools' tools in the
session's directory, modes' middleware and ``switch_mode``, titles' ``set_session_title``, the
core's tool guard) serves several sessions whose turns run at the same time: each reads its own
directory, writes and edits only where its own mode lets it, names only itself and switches
only its own mode.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent, serve_in_process

TARGET = "langacp.testing.agent:agent"
PLUGINS = ["client-tools", "tools", "permissions", "modes", "titles", "stop-reasons", "usage"]


def _results(agent: ServedAgent, session_id: str) -> list[str]:
    """The raw outputs of the session's finished tool calls, as text."""
    return [
        json.dumps(update.raw_output, default=str)
        for update in agent.client.of(session_id)
        if update.session_update == "tool_call_update" and update.raw_output is not None
    ]


def _allow(request: Any) -> str:
    """Allow always; a mode switch the agent asks for is allowed too (its options are switch / stay)."""
    kinds = {option.kind: option.option_id for option in request.options}
    return str(kinds.get("allow_always") or kinds["allow_once"])


async def _turn(agent: ServedAgent, session_id: str, text: str) -> str:
    return await agent.prompt(session_id, text)


async def test_concurrent_sessions_of_a_shared_graph_keep_their_own_objects(tmp_path: Path) -> None:
    config_home = tmp_path / "config"
    config_home.mkdir()
    dirs = []
    for i in range(4):
        work = tmp_path / f"work{i}"
        work.mkdir()
        (work / "note.txt").write_text(f"the note of session {i}\n")
        dirs.append(work)
    client = EditorClient(answer=_allow, fs=False, terminal=False)
    env = {"XDG_CONFIG_HOME": str(config_home)}
    async with serve_in_process(TARGET, plugins=PLUGINS, client=client, env=env, cwd=dirs[0]) as agent:
        await agent.initialize()
        sids = [await agent.new_session(str(work)) for work in dirs]
        live: Any = agent.process.agent.registry.live  # type: ignore[attr-defined]
        graphs = [live[sid].graph for sid in sids]
        # Every session of a configuration, the first one included, gets the one shared graph.
        assert graphs[0] is graphs[1] is graphs[2] is graphs[3]
        await agent.conn.set_session_mode(session_id=sids[3], mode_id="readonly")
        await agent.conn.set_session_mode(session_id=sids[1], mode_id="agentic")
        await agent.conn.set_session_mode(session_id=sids[2], mode_id="agentic")

        reads = await asyncio.gather(*(_turn(agent, sid, 'tool read_file {"path": "note.txt"}') for sid in sids))
        assert reads == ["end_turn"] * 4
        for i, sid in enumerate(sids):
            outputs = _results(agent, sid)
            assert any(f"the note of session {i}" in out for out in outputs), outputs
            others = [j for j in range(4) if j != i]
            assert not any(f"the note of session {j}" in out for out in outputs for j in others), outputs

        write = 'tool write_file {{"path": "out.txt", "content": "from {}"}}'
        writes = await asyncio.gather(*(_turn(agent, sid, write.format(i)) for i, sid in enumerate(sids)))
        assert writes == ["end_turn"] * 4
        titles = await asyncio.gather(
            *(_turn(agent, sid, f'tool set_session_title {{"title": "Title {i}"}}') for i, sid in enumerate(sids))
        )
        assert titles == ["end_turn"] * 4
        named = {
            sid: [u.title for u in agent.client.of(sid) if u.session_update == "session_info_update" and u.title]
            for sid in sids
        }
        # Every session has the one tool of each name, made once; each call acts for its own session.
        edit = 'tool edit_file {{"path": "out.txt", "old_string": "from {0}", "new_string": "edited by {0}"}}'
        edits = await asyncio.gather(*(_turn(agent, sid, edit.format(i)) for i, sid in enumerate(sids[:3])))
        assert edits == ["end_turn"] * 3
        switch = 'tool switch_mode {"mode_id": "readonly", "reason": "test"}'
        switches = await asyncio.gather(*(_turn(agent, sid, switch) for sid in sids[:2]))
        assert switches == ["end_turn"] * 2
        modes = [live[sid].context.mode_id for sid in sids]

    # Each write and edit landed in its own session's directory; the read-only session wrote nothing.
    for i in (0, 1, 2):
        assert (dirs[i] / "out.txt").read_text() == f"edited by {i}"
    # Each switch_mode call switched its own session only.
    assert modes == ["readonly", "readonly", "agentic", "readonly"]
    assert not (dirs[3] / "out.txt").exists()
    assert any("did not run" in out for out in _results(agent, sids[3]))
    # Each session was named by its own turn, and only by it (the read-only mode keeps the tool from running).
    for i, sid in enumerate(sids):
        given = [title for title in named[sid] if title.startswith("Title ")]
        assert given == ([f"Title {i}"] if i < 3 else []), named[sid]
