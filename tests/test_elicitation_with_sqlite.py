"""langacp-elicitation with langacp-sqlite: a session paused on a question survives a restart; loading it
shows the question again and the next prompt answers it (a real SQLite file, two agent processes)."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from langacp.testing.harness import serve

GRAPHS = Path(__file__).resolve().parents[1] / "plugins" / "elicitation" / "tests" / "elicitation_graphs.py"


async def test_a_paused_session_is_asked_again_after_a_restart(tmp_path: Path) -> None:
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    target = f"{GRAPHS}:asker"
    async with serve(target, plugins=["elicitation"], args=store, cwd=tmp_path) as first:
        sid = await first.start()
        assert "2. production" in await first.reply(sid, "options")
    async with serve(target, plugins=["elicitation"], args=store, cwd=tmp_path) as second:
        await second.initialize()
        await second.conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        replayed = second.client.text(sid)
        assert replayed.count("Which environment should I deploy to?") == 1 and "2. production" in replayed
        second.client.updates.clear()
        response = await second.conn.prompt(session_id=sid, prompt=[text_block("production")])
        assert response.stop_reason == "end_turn"
        assert 'resumed with "production"' in second.client.text(sid)
