"""``additionalDirectories`` are stored with a SQLite session: listed, kept across processes, replaced on load."""

from __future__ import annotations

from pathlib import Path

from langacp.testing.harness import serve


async def test_sqlite_additional_directories_survive_and_load_replaces_them(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    async with serve(args=["--store", url]) as agent:
        init = await agent.initialize()
        assert init.agent_capabilities is not None and init.agent_capabilities.session_capabilities is not None
        assert init.agent_capabilities.session_capabilities.additional_directories is not None
        created = await agent.conn.new_session(cwd=str(tmp_path), additional_directories=[str(first)], mcp_servers=[])
        sid = created.session_id
        await agent.prompt(sid, "echo remembered")
    async with serve(args=["--store", url]) as agent:
        await agent.initialize()
        [info] = (await agent.conn.list_sessions(cwd=str(tmp_path))).sessions
        assert info.additional_directories == [str(first)]
        await agent.conn.load_session(
            cwd=str(tmp_path), session_id=sid, additional_directories=[str(second)], mcp_servers=[]
        )
        [info] = (await agent.conn.list_sessions(cwd=str(tmp_path))).sessions
        assert info.additional_directories == [str(second)]
        assert agent.client.text(sid) == "remembered"
