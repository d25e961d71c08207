"""The updates a client gets for each tool call, and in what order, over real pipes (``langacp serve``).

A streamed call: ``tool_call`` ``pending`` from its first chunk (no arguments yet), then one
``tool_call_update`` ``in_progress`` carrying the arguments, then the result. A call whose
arguments are complete when it is first seen is announced with them. Whatever must not reach
the client before the arguments (a permission request, an interrupt, the end of the turn, the
result of a call that never started) gets them first, in an update of their own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from core_support import FIXTURES, StartAgent

from langacp.client import PermissionRequest, RecordingClient
from langacp.testing.calls import failed_text, tool_prompt
from langacp.testing.polling import wait_for_file

STAGES = f"{FIXTURES / 'stages_target.py'}"
ADD = {"a": 2, "b": 3}


def stages(updates: list[Any]) -> list[tuple[str, str | None, Any]]:
    """Each tool-call update as (kind, status, rawInput)."""
    return [
        (u.session_update, u.status, u.raw_input)
        for u in updates
        if u.session_update in ("tool_call", "tool_call_update")
    ]


STREAMED = [
    ("tool_call", "pending", None),
    ("tool_call_update", "in_progress", ADD),
    ("tool_call_update", "completed", None),
]


@pytest.mark.parametrize("target", ["agent", "graph"])
async def test_a_streamed_call_takes_three_updates(start_agent: StartAgent, target: str) -> None:
    async with start_agent(target, subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("add", **ADD)) == "end_turn"
        updates = agent.client.of(sid)
        assert stages(updates) == STREAMED
        running = next(u for u in updates if u.status == "in_progress")
        assert (running.title, running.kind) == ("add", "other")  # described with the arguments
        agent.client.updates.clear()
        assert await agent.prompt(sid, "tools 3") == "end_turn"
        assert [s[:2] for s in stages(agent.client.of(sid))] == [s[:2] for s in STREAMED] * 3


async def test_a_precompiled_graph_reports_an_async_tool_running(start_agent: StartAgent) -> None:
    """The precompiled graph has no tool guard: a callback handler tells the turn a tool started."""
    async with start_agent("graph", subprocess=True) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "slow 30"))
        await agent.client.wait_for(lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups), 30)
        assert stages(agent.client.of(sid)) == [
            ("tool_call", "pending", None),
            ("tool_call_update", "in_progress", {"seconds": 30.0}),
        ]
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 15) == "cancelled"
        assert stages(agent.client.of(sid))[2:] == [("tool_call_update", "failed", None)]


async def test_a_graph_run_inside_a_tool_is_not_the_turn(start_agent: StartAgent) -> None:
    """Tools of a graph the tool runs (a helper agent) are not reported as the turn's calls."""
    async with start_agent(f"{STAGES}:nested", subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("delegate", task="add them")) == "end_turn"
        updates = agent.client.of(sid)
        assert stages(updates) == [
            ("tool_call", "pending", None),
            ("tool_call_update", "in_progress", {"task": "add them"}),
            ("tool_call_update", "completed", None),
        ]
        assert {u.tool_call_id for u in updates if u.session_update.startswith("tool_call")} == {"call_1"}
        assert agent.client.text(sid) == "done: helped"


async def test_a_call_complete_when_first_seen_is_announced_with_its_arguments(start_agent: StartAgent) -> None:
    """A model that does not stream: the call is announced with its arguments, in one ``tool_call``."""
    async with start_agent(f"{STAGES}:unstreamed", subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("add", **ADD)) == "end_turn"
        assert stages(agent.client.of(sid)) == [
            ("tool_call", "pending", ADD),
            ("tool_call_update", "in_progress", None),
            ("tool_call_update", "completed", None),
        ]


@pytest.mark.parametrize("answer", ["allow_once", "reject_once"])
async def test_the_arguments_reach_the_client_before_the_permission_request(
    start_agent: StartAgent, answer: str
) -> None:
    seen: list[list[tuple[str, str | None, Any]]] = []

    def ask(request: PermissionRequest) -> str:
        seen.append(stages(client.of(request.session_id)))  # what the client knew when asked
        return next(o.option_id for o in request.options if o.kind == answer)

    client = RecordingClient(answer=ask)
    async with start_agent(testplug=["ask"], client=client, subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("add", **ADD)) == "end_turn"
        shown = [("tool_call", "pending", None), ("tool_call_update", None, ADD)]
        assert seen == [shown]
        final = ("tool_call_update", "completed" if answer == "allow_once" else "failed", None)
        started = [("tool_call_update", "in_progress", None)] if answer == "allow_once" else []
        assert stages(client.of(sid)) == [*shown, *started, final]


async def test_a_call_refused_before_it_starts_shows_its_arguments_then_fails(start_agent: StartAgent) -> None:
    async with start_agent(f"{STAGES}:agent", subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("checked", path="refused")) == "end_turn"
        updates = agent.client.of(sid)
        assert stages(updates) == [
            ("tool_call", "pending", None),
            ("tool_call_update", None, {"path": "refused"}),
            ("tool_call_update", "failed", None),
        ]
        assert "this path is refused" in failed_text(updates)


async def test_a_cancel_before_the_call_starts_shows_its_arguments_then_fails(
    start_agent: StartAgent, tmp_path: Path
) -> None:
    marker = tmp_path / "checking"
    async with start_agent(f"{STAGES}:agent", subprocess=True) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, tool_prompt("checked", path=str(marker))))
        await wait_for_file(marker, timeout=30)  # the tool guard is checking the call: it has not started
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 15) == "cancelled"
        assert stages(agent.client.of(sid)) == [
            ("tool_call", "pending", None),
            ("tool_call_update", None, {"path": str(marker)}),
            ("tool_call_update", "failed", None),
        ]


async def test_the_turn_cut_by_its_step_limit_shows_the_arguments_then_fails(start_agent: StartAgent) -> None:
    """The model's tool call is the last step the limit allows: the call never starts."""
    async with start_agent(args=["--recursion-limit", "1"], subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("add", **ADD)) == "max_turn_requests"
        assert stages(agent.client.of(sid)) == [
            ("tool_call", "pending", None),
            ("tool_call_update", None, ADD),
            ("tool_call_update", "failed", None),
        ]


@pytest.mark.parametrize("answered", [True, False])
async def test_an_interrupt_shows_the_arguments_first(start_agent: StartAgent, answered: bool) -> None:
    """HumanInTheLoopMiddleware pauses before the call runs: its arguments go out before the pause is handled."""
    async with start_agent("hitl_agent", testplug=["hitl"] if answered else [], subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, tool_prompt("add", **ADD)) == ("end_turn" if answered else "cancelled")
        after = [("tool_call_update", "in_progress", None), ("tool_call_update", "completed", None)]
        assert stages(agent.client.of(sid)) == [
            ("tool_call", "pending", None),
            ("tool_call_update", None, ADD),
            *(after if answered else [("tool_call_update", "failed", None)]),
        ]
