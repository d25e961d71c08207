"""session/delete after /clear (langacp-commands) with a SQLite store: the thread /clear left behind goes too."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from langacp.testing.harness import serve


def threads(db: Path, prefix: str) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {
            row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints") if row[0].startswith(prefix)
        }


async def test_delete_removes_the_threads_clear_left_behind(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    async with serve(plugins=["commands"], args=["--store", f"sqlite:///{db}"], cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "echo before clear") == "end_turn"
        assert await agent.prompt(sid, "/clear") == "end_turn"
        assert await agent.prompt(sid, "echo after clear") == "end_turn"
        assert len(threads(db, sid)) == 2  # the old thread and the new one
        assert await agent.conn._conn.send_request("session/delete", {"sessionId": sid}) == {}
        assert threads(db, sid) == set()
