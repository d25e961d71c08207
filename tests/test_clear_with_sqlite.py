"""/clear (langacp-commands) with a SQLite store (langacp-sqlite): the fresh thread survives a restart and a fork."""

from __future__ import annotations

from pathlib import Path

from langacp.testing.harness import serve


async def test_a_cleared_session_loads_and_forks_from_its_new_thread(tmp_path: Path) -> None:
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with serve(plugins=["commands"], args=store, cwd=tmp_path) as first:
        sid = await first.start()
        assert await first.prompt(sid, "echo forgotten") == "end_turn"
        assert await first.prompt(sid, "/clear") == "end_turn"
        assert await first.prompt(sid, "echo kept") == "end_turn"
    async with serve(plugins=["commands"], args=store, cwd=tmp_path) as second:
        await second.initialize()
        await second.conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        replayed = [u.content.text for u in second.client.of(sid, "user_message_chunk")]
        assert replayed == ["echo kept"]
        fork = await second.conn.fork_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        assert await second.prompt(fork.session_id, "history") == "end_turn"
        history = second.client.text(fork.session_id)
        assert "kept" in history and "forgotten" not in history
