"""The plugin's four tools are made once per process and act only for the session whose turn calls
them, and only if that session was given them: outside a turn, or in a turn of a session the plugin
gave no tools, they refuse and nothing is read, written or run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langacp.api import CHECK_KEY, SessionContext, run_off_loop
from langacp.plugins import Plugins
from langacp.testing.turns import in_turn
from langacp_client_tools import plugin


async def _session(plugins: Plugins, name: str, root: Path) -> SessionContext:
    work = root / name
    work.mkdir()
    (work / "note.txt").write_text(f"the note of {name}\n")
    session = SessionContext(session_id=name, cwd=str(work), plugins=plugins)
    await plugins.session_created(session)
    return session


async def test_one_tool_of_each_name_acts_for_the_running_session_only(tmp_path: Path) -> None:
    plugins = Plugins()
    plugins.register(plugin)
    a, b, stranger = [await _session(plugins, name, tmp_path) for name in ("a", "b", "stranger")]
    tools_a, tools_b = await plugins.session_tools(a), await plugins.session_tools(b)
    assert [t.name for t in tools_a] == ["read_file", "write_file", "edit_file", "run_command"]
    assert all(x is y for x, y in zip(tools_a, tools_b, strict=True))  # made once, nothing of a session in them
    read, write, _, run = tools_a

    async def call(tool: Any, **args: Any) -> Any:
        return await tool.ainvoke({"type": "tool_call", "id": "call_1", "name": tool.name, "args": args})

    async def check(tool: Any, **args: Any) -> Any:
        return await run_off_loop(tool.metadata[CHECK_KEY], None, args)  # the guard runs it in a worker thread

    # Each session's turn reads its own note, writes and runs in its own directory.
    for session in (a, b):
        note = await in_turn(session, lambda: call(read, path="note.txt"))
        assert note.content.strip() == f"the note of {session.session_id}" and note.status != "error"
        assert await in_turn(session, lambda: check(write, path="out.txt")) is None
        await in_turn(session, lambda s=session: call(write, path="out.txt", content=f"by {s.session_id}"))
        await in_turn(session, lambda: call(run, command="pwd > where.txt"))
        assert (Path(session.cwd) / "out.txt").read_text() == f"by {session.session_id}"
        assert (Path(session.cwd) / "where.txt").read_text().strip() == session.cwd
    # The other session's file is outside this one's directories: its check refuses it before anyone is asked.
    other = str(Path(b.cwd) / "note.txt")
    refused = await in_turn(a, lambda: check(read, path=other))
    assert refused is not None and "outside" in refused

    # Outside a turn, and in a turn of a session given no tools: refused, nothing done.
    for where in (None, stranger):

        async def attempt() -> list[Any]:
            return [
                await call(read, path="note.txt"),
                await call(write, path="stray.txt", content="x"),
                await call(run, command="touch stray.txt"),
                await check(read, path="note.txt"),
            ]

        results = await (attempt() if where is None else in_turn(where, attempt))
        *outcomes, reason = results
        assert all(
            o.status == "error" and "runs only in a turn of a session it was given to" in o.content for o in outcomes
        )
        assert reason is not None and "runs only in a turn" in reason
    assert sorted(p.name for p in tmp_path.rglob("stray.txt")) == []
    assert not any("the note of" in str(o.content) for o in outcomes)
    await plugins.session_closed(a)
    await plugins.session_closed(b)
