"""langacp-titles with langacp-sqlite: a session's title is stored, listed and re-sent after a restart."""

from __future__ import annotations

from pathlib import Path

from langacp.testing.harness import serve


async def test_titles_survive_a_restart(tmp_path: Path) -> None:
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with serve(plugins=["titles"], args=store, cwd=tmp_path) as first:
        sid = await first.start()
        assert await first.prompt(sid, "echo Hello, can you please fix the failing parser test?") == "end_turn"
        [info] = first.client.of(sid, "session_info_update")
        title = info.title
        assert title and "parser" in title
    async with serve(plugins=["titles"], args=store, cwd=tmp_path) as second:
        await second.initialize()
        listed = (await second.conn.list_sessions()).sessions
        assert [(s.session_id, s.title) for s in listed] == [(sid, title)]
        await second.conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        assert [u.title for u in second.client.of(sid, "session_info_update")] == [title]
