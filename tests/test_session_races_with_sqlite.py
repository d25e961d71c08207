"""Requests for one stored session that arrive together (an editor reopening its tabs, a retry after a
timeout), over real pipes with langacp-sqlite: the session opens once and each replay arrives whole.

The rule: requests that open, replay or close a session take their turn in the order they arrived,
each finished before the next starts; a prompt sent after a load starts once the load's replay is
sent. The fixture plugin ``testplug`` (core/tests/fixtures/site) logs every session it is told of.
The client going (stdin closed) while a session is being loaded or made is one more of them: that
session is closed too, before the store is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from langchain_core.messages import AIMessage, HumanMessage

from langacp.client import update_text
from langacp.testing.harness import ServedAgent, serve, store_thread
from langacp.testing.polling import eventually

SITE = Path(__file__).resolve().parents[1] / "core" / "tests" / "fixtures" / "site"
CONVERSATION = ("user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update")
"""The kinds of update a replay is made of."""


@asynccontextmanager
async def served(tmp_path: Path, features: str = "events") -> AsyncIterator[ServedAgent]:
    """``langacp serve`` with a SQLite store and testplug's session events in ``tmp_path/events.jsonl``."""
    pythonpath = os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": pythonpath, "LANGACP_TESTPLUG": features, "LANGACP_TEST_EVENTS": str(events_file(tmp_path))}
    store = ["--store", store_url(tmp_path)]
    async with serve(plugins=["testplug"], args=store, env=env, cwd=tmp_path) as agent:
        yield agent


def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'sessions.db'}"


def events_file(tmp_path: Path) -> Path:
    return tmp_path / "events.jsonl"


def events(tmp_path: Path) -> list[str]:
    """The session events testplug logged so far (``session_created``, ``session_loaded``, …)."""
    path = events_file(tmp_path)
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line)["event"] for line in lines if line.strip()]


def conversation(agent: ServedAgent, session_id: str) -> list[tuple[Any, ...]]:
    """The session's conversation updates received so far, in order (kind, text, tool call id, status)."""
    return [
        (u.session_update, update_text(u), getattr(u, "tool_call_id", None), getattr(u, "status", None))
        for u in agent.client.of(session_id)
        if u.session_update in CONVERSATION
    ]


async def load(agent: ServedAgent, session_id: str) -> Any:
    return await agent.conn.load_session(cwd=str(agent.cwd), session_id=session_id, mcp_servers=[])


async def stored_session(agent: ServedAgent) -> tuple[str, list[tuple[Any, ...]]]:
    """A closed session with a conversation in the store, and what one load of it alone replays."""
    sid = await agent.start()
    assert await agent.prompt(sid, "echo one") == "end_turn"
    assert await agent.prompt(sid, 'tool add {"a": 2, "b": 2}') == "end_turn"
    assert await agent.prompt(sid, "echo two") == "end_turn"
    await agent.conn.close_session(session_id=sid)
    agent.client.updates.clear()
    await load(agent, sid)
    replay = conversation(agent, sid)
    assert [kind for kind, *_ in replay].count("user_message_chunk") == 3
    await agent.conn.close_session(session_id=sid)
    agent.client.updates.clear()
    return sid, replay


def assert_every_session_closed(tmp_path: Path) -> None:
    """Each session plugins were told of was closed (none leaked, still holding what plugins gave it)."""
    seen = events(tmp_path)
    assert seen.count("session_created") + seen.count("session_loaded") == seen.count("session_closed"), seen


async def test_two_loads_at_once_open_the_session_once_and_each_replay_is_whole(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid, replay = await stored_session(agent)
        before = len(events(tmp_path))
        await asyncio.gather(load(agent, sid), load(agent, sid))  # neither fails
        assert conversation(agent, sid) == replay + replay  # one replay after the other, each complete
        assert events(tmp_path)[before:] == ["session_loaded"]  # opened once
        agent.client.updates.clear()
        assert await agent.reply(sid, "history") == 'echo one | tool add {"a": 2, "b": 2} | echo two | history'
        await agent.conn.close_session(session_id=sid)  # one close closes it
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "echo closed")
        assert err.value.code == -32002
        assert events(tmp_path)[before:].count("session_closed") == 1
    assert_every_session_closed(tmp_path)


async def test_a_prompt_sent_with_a_load_runs_after_the_replay(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid, replay = await stored_session(agent)
        _, stop_reason = await asyncio.gather(load(agent, sid), agent.prompt(sid, "echo three"))
        assert stop_reason == "end_turn"
        seen = conversation(agent, sid)
        assert seen[: len(replay)] == replay  # the whole replay first
        assert "".join(text for kind, text, *_ in seen[len(replay) :] if kind == "agent_message_chunk") == "three"
        agent.client.updates.clear()
        assert (
            await agent.reply(sid, "history")
            == 'echo one | tool add {"a": 2, "b": 2} | echo two | echo three | history'
        )
        await agent.conn.close_session(session_id=sid)
        # A cancel sent after the prompt reaches it even while it waits for the load: not lost.
        slow = agent.prompt(sid, "slow 30")
        _, stop_reason, _ = await asyncio.gather(load(agent, sid), slow, agent.conn.cancel(session_id=sid))
        assert stop_reason == "cancelled"
    assert_every_session_closed(tmp_path)


async def test_a_close_and_a_resume_sent_with_a_load_take_their_turns(tmp_path: Path) -> None:
    async with served(tmp_path) as agent:
        sid, replay = await stored_session(agent)
        before = len(events(tmp_path))
        await asyncio.gather(load(agent, sid), agent.conn.close_session(session_id=sid))
        assert conversation(agent, sid) == replay
        assert events(tmp_path)[before:] == ["session_loaded", "session_closed"]  # loaded, then closed
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "echo closed")
        assert err.value.code == -32002
        agent.client.updates.clear()
        before = len(events(tmp_path))
        resume = agent.conn.resume_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])
        await asyncio.gather(resume, load(agent, sid), load(agent, sid))
        assert conversation(agent, sid) == replay + replay  # the resume replays nothing
        assert events(tmp_path)[before:] == ["session_loaded"]
        fork = agent.conn.fork_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])
        closed = agent.conn.close_session(session_id=sid)
        forked, _ = await asyncio.gather(fork, closed)
        agent.client.updates.clear()
        assert (
            await agent.reply(forked.session_id, "history")
            == 'echo one | tool add {"a": 2, "b": 2} | echo two | history'
        )
    assert_every_session_closed(tmp_path)


async def test_a_running_prompt_holds_back_no_load_fork_or_close(tmp_path: Path) -> None:
    """As before: a load or fork while a prompt runs is refused at once; a close cancels the prompt."""
    async with served(tmp_path) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "slow 60"))
        await agent.client.wait_for(lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups))
        with pytest.raises(RequestError) as err:
            await load(agent, sid)
        assert err.value.code == -32602
        with pytest.raises(RequestError) as err:
            await agent.conn.fork_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])
        assert err.value.code == -32602
        await agent.conn.close_session(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
    assert_every_session_closed(tmp_path)


async def test_a_mode_or_option_set_with_a_load_applies_to_the_loaded_session(tmp_path: Path) -> None:
    """A setting sent right after a load waits for it, instead of -32002 or a half-restored session."""
    pythonpath = os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": pythonpath, "LANGACP_TESTPLUG": "events", "LANGACP_TEST_EVENTS": str(events_file(tmp_path))}
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with serve(plugins=["testplug", "modes"], args=store, env=env, cwd=tmp_path) as agent:
        sid, _replay = await stored_session(agent)
        loaded, _ = await asyncio.gather(
            load(agent, sid), agent.conn.set_session_mode(session_id=sid, mode_id="readonly")
        )
        assert loaded.modes is not None and loaded.modes.current_mode_id != "readonly"  # answered before the switch
        _, options = await asyncio.gather(
            load(agent, sid), agent.conn.set_config_option(session_id=sid, config_id="mode", value="agentic")
        )
        assert {o.id: o.current_value for o in options.config_options}["mode"] == "agentic"
        await agent.conn.close_session(session_id=sid)
        again = await load(agent, sid)  # both were saved with the session
        assert again.modes is not None and again.modes.current_mode_id == "agentic"
        await agent.conn.close_session(session_id=sid)
    assert_every_session_closed(tmp_path)


def leases(tmp_path: Path) -> list[tuple[str, str]]:
    """The session leases left in the store: (session id, holder)."""
    with contextlib.closing(sqlite3.connect(tmp_path / "sessions.db")) as db:
        return [(str(sid), str(owner)) for sid, owner in db.execute("SELECT session_id, owner FROM langacp_leases")]


@pytest.mark.parametrize("request_kind", ["load", "new"])
async def test_stdin_closing_while_a_session_opens_closes_it_and_frees_its_lease(
    tmp_path: Path, request_kind: str
) -> None:
    """The editor goes while a session is being loaded (or made), held up in a plugin's hook: the agent
    still closes it (plugins told, its lease given back) before it exits, and the stored session is
    whole: another process loads all of it."""
    said = [m for i in range(300) for m in (HumanMessage(f"echo {i}"), AIMessage(f"reply {i}"))]
    sid = await store_thread(store_url(tmp_path), tmp_path, said)
    slow = "slow-load" if request_kind == "load" else "slow"
    async with served(tmp_path, f"events,{slow}") as agent:
        await agent.initialize()
        opening = asyncio.ensure_future(load(agent, sid) if request_kind == "load" else agent.new_session())
        wanted = "session_loaded" if request_kind == "load" else "session_created"
        await eventually(lambda: wanted in events(tmp_path), 60)  # the session is opening, held up in the hook
        assert agent.process.stdin is not None  # type: ignore[attr-defined]
        agent.process.stdin.close()  # type: ignore[attr-defined]
        assert await asyncio.wait_for(agent.process.wait(), 30) == 0  # type: ignore[attr-defined]
        opening.cancel()
        await asyncio.gather(opening, return_exceptions=True)
    assert_every_session_closed(tmp_path)
    assert leases(tmp_path) == []
    async with served(tmp_path) as agent:
        await agent.initialize()
        await load(agent, sid)
        assert [text for kind, text, *_ in conversation(agent, sid) if kind == "agent_message_chunk"] == [
            f"reply {i}" for i in range(300)
        ]
        await agent.conn.close_session(session_id=sid)
    assert_every_session_closed(tmp_path)
    assert leases(tmp_path) == []
