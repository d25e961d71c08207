"""``session/delete`` with PostgreSQL, over the protocol: the record and the session's checkpoints go, others stay."""

from __future__ import annotations

import psycopg
import pytest
from acp import RequestError

from langacp.testing.harness import serve


def thread_ids(url: str) -> set[str]:
    with psycopg.connect(url, client_encoding="UTF8") as conn:  # str whatever the server's encoding
        return {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}


async def test_postgres_delete_removes_record_and_checkpoints(postgres_url: str, tmp_path: object) -> None:
    async with serve(args=["--store", postgres_url]) as agent:
        init = await agent.initialize()
        assert init.agent_capabilities is not None and init.agent_capabilities.session_capabilities is not None
        assert init.agent_capabilities.session_capabilities.delete is not None
        keep, gone = await agent.new_session(), await agent.new_session()
        await agent.prompt(keep, "echo kept")
        await agent.prompt(gone, "echo deleted")
        assert {keep, gone} <= thread_ids(postgres_url)
        assert await agent.conn._conn.send_request("session/delete", {"sessionId": gone}) == {}
        assert await agent.conn._conn.send_request("session/delete", {"sessionId": gone}) == {}  # again: no error
        assert gone not in thread_ids(postgres_url) and keep in thread_ids(postgres_url)
        listed = await agent.conn.list_sessions()
        assert [s.session_id for s in listed.sessions] == [keep]
        with pytest.raises(RequestError) as err:
            await agent.conn.load_session(cwd=str(agent.cwd), session_id=gone, mcp_servers=[])
        assert err.value.code == -32002
