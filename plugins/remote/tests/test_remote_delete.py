"""``session/delete`` on ``langacp serve --remote`` is ``threads.delete``; the thread names the client.

Against a real ``langgraph dev`` server, over real pipes.
"""

from __future__ import annotations

from pathlib import Path

from acp.schema import Implementation
from langgraph_sdk import get_client

from langacp_remote.testing import LangGraphDevServer, serve_remote

SESSION_KEY = "langacp_session_id"


async def test_remote_session_delete_deletes_every_thread_of_the_session(
    langgraph_server: LangGraphDevServer, tmp_path: Path
) -> None:
    server = get_client(url=langgraph_server.url)
    cwd = tmp_path / "project"
    cwd.mkdir()
    async with serve_remote(langgraph_server.url, "agent", cwd=cwd) as agent:
        init = await agent.conn.initialize(
            protocol_version=1, client_info=Implementation(name="delete-test-editor", version="1.2.3")
        )
        sessions = init.agent_capabilities.session_capabilities if init.agent_capabilities else None
        assert sessions is not None and sessions.delete is not None  # offered
        gone = await agent.new_session()
        assert await agent.prompt(gone, "echo soon gone") == "end_turn"
        kept = await agent.new_session()
        assert await agent.prompt(kept, "echo still here") == "end_turn"

        [thread] = await server.threads.search(metadata={SESSION_KEY: gone})
        assert thread["metadata"]["langacp_client"] == "delete-test-editor"  # clientInfo reached the thread
        # A thread the session left behind (as /clear does): tagged with the session, not its current one.
        await server.threads.create(metadata={SESSION_KEY: gone, "cwd": str(cwd)})
        assert len(await server.threads.search(metadata={SESSION_KEY: gone})) == 2

        assert await agent.conn._conn.send_request("session/delete", {"sessionId": gone}) == {}
        assert await server.threads.search(metadata={SESSION_KEY: gone}) == []
        assert len(await server.threads.search(metadata={SESSION_KEY: kept})) == 1
        listed = await agent.conn.list_sessions(cwd=str(cwd))
        assert [s.session_id for s in listed.sessions] == [kept]
        assert await agent.conn._conn.send_request("session/delete", {"sessionId": gone}) == {}  # again: no error
        assert await agent.prompt(kept, "echo after the delete") == "end_turn"
