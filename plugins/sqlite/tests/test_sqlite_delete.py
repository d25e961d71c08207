"""``session/delete`` with SQLite: the record and every checkpoint of the session leave the file; others stay."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from acp import RequestError

from langacp.testing.harness import serve


def thread_ids(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}


def session_ids(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT session_id FROM langacp_sessions")}


async def test_sqlite_delete_removes_record_and_checkpoints(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    url = f"sqlite:///{db}"
    async with serve(args=["--store", url]) as agent:
        init = await agent.initialize()
        assert init.agent_capabilities is not None and init.agent_capabilities.session_capabilities is not None
        assert init.agent_capabilities.session_capabilities.delete is not None
        keep, gone = await agent.new_session(str(tmp_path)), await agent.new_session(str(tmp_path))
        await agent.prompt(keep, "echo kept")
        await agent.prompt(gone, "echo deleted")
        assert {t for t in thread_ids(db) if t.startswith(gone)} and keep in thread_ids(db)
        assert await agent.conn._conn.send_request("session/delete", {"sessionId": gone}) == {}
        assert not {t for t in thread_ids(db) if t.startswith(gone)}
        assert session_ids(db) == {keep} and keep in thread_ids(db)
        listed = await agent.conn.list_sessions(cwd=str(tmp_path))
        assert [s.session_id for s in listed.sessions] == [keep]
    async with serve(args=["--store", url]) as agent:  # another process: still gone, load is an error
        await agent.initialize()
        with pytest.raises(RequestError) as err:
            await agent.conn.load_session(cwd=str(tmp_path), session_id=gone, mcp_servers=[])
        assert err.value.code == -32002
        await agent.conn.load_session(cwd=str(tmp_path), session_id=keep, mcp_servers=[])
        assert agent.client.text(keep) == "kept"
