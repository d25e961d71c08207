"""``langacp.api.current_session()``: a tool made once for every session finds, at each call, the
session whose turn runs it (a sync tool in its worker thread too), and nothing outside a turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from core_support import StartAgent

from langacp.api import SessionContext, current_session
from langacp.testing.turns import in_turn


def test_outside_a_turn_there_is_no_session() -> None:
    assert current_session() is None


async def test_a_turn_and_what_it_runs_see_its_session_and_no_other() -> None:
    mine, other = SessionContext(session_id="mine", cwd="/"), SessionContext(session_id="other", cwd="/")

    async def look() -> list[Any]:
        await asyncio.sleep(0)  # the other turn runs meanwhile
        in_thread = await asyncio.to_thread(current_session)  # a sync tool's worker thread
        return [current_session(), in_thread]

    seen = await asyncio.gather(in_turn(mine, look), in_turn(other, look))
    assert seen == [[mine, mine], [other, other]]
    assert current_session() is None  # the turns' own contexts: nothing leaked into this one


async def test_a_shared_sync_tool_acts_for_each_sessions_own_turn_over_pipes(
    start_agent: StartAgent, tmp_path: Path
) -> None:
    """Two sessions in two directories; ``whose_session`` (the test plugin's one sync tool) runs in
    LangChain's worker thread, at the same time in both sessions, and reports its caller's session."""
    dirs = [tmp_path / "a", tmp_path / "b"]
    for d in dirs:
        d.mkdir()
    env = {"LANGACP_TEST_TOKEN_DELAY": "0.002"}  # the two turns interleave
    async with start_agent(testplug=["shared"], subprocess=True, env=env) as agent:
        await agent.initialize()
        sids = [await agent.new_session(str(d)) for d in dirs]
        for _ in range(3):
            stops = await asyncio.gather(*(agent.prompt(sid, "tool whose_session {}") for sid in sids))
            assert stops == ["end_turn", "end_turn"]
        for sid, d in zip(sids, dirs, strict=True):
            outputs = [u.raw_output for u in agent.client.of(sid, "tool_call_update") if u.status == "completed"]
            assert outputs == [f"{sid} in {d} (worker thread)"] * 3, outputs
