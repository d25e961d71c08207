"""session/load of a stored thread whose messages hold several text parts: one update per message's text."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langacp.testing.harness import serve, store_thread


def _replayed(update: Any) -> tuple[Any, ...]:
    kind = update.session_update
    if kind == "tool_call":
        return (kind, update.tool_call_id, update.status, [c.content.text for c in update.content or []])
    return (kind, update.content.text)


async def test_adjacent_text_parts_of_a_message_are_replayed_as_one_update(store_url: str, tmp_path: Path) -> None:
    call = {"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1", "type": "tool_call"}
    cited = {"type": "text", "text": " (see", "annotations": [{"type": "citation", "url": "https://example.com/a"}]}
    messages = [
        HumanMessage([{"type": "text", "text": "add "}, {"type": "text", "text": "two and three"}]),
        AIMessage([{"type": "text", "text": "Let me "}, {"type": "text", "text": "add them."}], tool_calls=[call]),
        ToolMessage("5", tool_call_id="call_1", name="add"),
        AIMessage(
            [
                {"type": "reasoning", "reasoning": "It is "},
                {"type": "reasoning", "reasoning": "five."},
                {"type": "text", "text": "It is "},
                {"type": "text", "text": "5"},
                cited,  # a part with more than its text stays its own update, as live
                {"type": "text", "text": " a)"},
                {"type": "text", "text": "."},
            ]
        ),
        HumanMessage("thanks"),
    ]
    session_id = await store_thread(store_url, tmp_path, messages)
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        await agent.conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
        replayed = [
            _replayed(u) for u in agent.client.of(session_id) if u.session_update != "available_commands_update"
        ]
        assert replayed == [
            ("user_message_chunk", "add two and three"),
            ("agent_message_chunk", "Let me add them."),
            ("tool_call", "call_1", "completed", ["5"]),
            ("agent_thought_chunk", "It is five."),
            ("agent_message_chunk", "It is 5"),
            ("agent_message_chunk", " (see"),
            ("agent_message_chunk", " a)."),
            ("user_message_chunk", "thanks"),
        ]
        # The session goes on with the same conversation.
        agent.client.updates.clear()
        assert await agent.prompt(session_id, "echo again") == "end_turn"
        assert agent.client.text(session_id) == "again"


async def test_a_load_that_changes_nothing_does_not_rewrite_the_record(store_url: str, tmp_path: Path) -> None:
    session_id = await store_thread(store_url, tmp_path, [HumanMessage("echo hi"), AIMessage("hi")])
    database = store_url.removeprefix("sqlite://")
    with closing(sqlite3.connect(database)) as db, db:  # counts the writes of session records
        db.executescript(
            "CREATE TABLE record_writes (session_id TEXT);"
            "CREATE TRIGGER counted AFTER UPDATE ON langacp_sessions "
            "BEGIN INSERT INTO record_writes VALUES (new.session_id); END;"
        )

    def writes() -> int:
        with closing(sqlite3.connect(database)) as db:
            return int(db.execute("SELECT count(*) FROM record_writes").fetchone()[0])

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        for cwd, expected in ((tmp_path, 1), (tmp_path, 1), (tmp_path, 1), (elsewhere, 2)):
            agent.client.updates.clear()
            await agent.conn.load_session(cwd=str(cwd), session_id=session_id, mcp_servers=[])
            assert [_replayed(u) for u in agent.client.of(session_id, "user_message_chunk")] == [
                ("user_message_chunk", "echo hi")
            ]
            await agent.conn.close_session(session_id=session_id)
            # The first load records what this client and its MCP servers are; the next two
            # change nothing; a load from another directory moves the session there.
            assert writes() == expected, cwd
        listed = await agent.conn.list_sessions(cwd=str(elsewhere))
        assert [s.session_id for s in listed.sessions] == [session_id]
