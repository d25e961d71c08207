"""Servers start with the session, fail without taking it down, and never outlive it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp_support import last_tool_call, read_pid, stdio_server, texts

from langacp.testing.polling import alive, gone


async def test_session_close_stops_the_server_process(serve_mcp, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    async with serve_mcp() as agent:
        await agent.initialize()
        server = stdio_server("s", "--pid-file", str(pid_file))
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])).session_id
        pid = await read_pid(pid_file)
        assert alive(pid)
        await agent.conn.close_session(session_id=sid)
        assert await gone(pid)
        # The agent goes on serving.
        other = (await agent.conn.new_session(cwd=str(agent.cwd))).session_id
        assert await agent.prompt(other, "echo still here") == "end_turn"


async def test_stdin_eof_stops_every_server_before_the_agent_exits(serve_mcp, tmp_path: Path) -> None:
    pids = []
    async with serve_mcp(subprocess=True) as agent:
        await agent.initialize()
        for n in range(2):
            pid_file = tmp_path / f"pid{n}"
            # --linger: the server ignores its stdin closing; the agent must signal it before exiting.
            server = stdio_server("s", "--pid-file", str(pid_file), "--linger", "60")
            await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])
            pids.append(await read_pid(pid_file))
        process = agent.process
        assert isinstance(process, asyncio.subprocess.Process) and process.stdin is not None
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), 30) == 0
        # Stopped by the agent (stdin closed, then SIGTERM), not left running.
        assert [await gone(pid, timeout=1.0) for pid in pids] == [True, True]
        assert "did not stop" not in agent.stderr()


async def test_kill_9_of_the_agent_leaves_no_server_behind(serve_mcp, tmp_path: Path) -> None:
    """The agent cannot stop anything when killed: the core's watchdog stops the server's group."""
    pid_file = tmp_path / "pid"
    async with serve_mcp(subprocess=True) as agent:
        await agent.initialize()
        server = stdio_server("s", "--pid-file", str(pid_file), "--linger", "300")
        await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])
        pid = await read_pid(pid_file)
        assert alive(pid)
        process = agent.process
        assert isinstance(process, asyncio.subprocess.Process)
        process.kill()
        await process.wait()
        assert await gone(pid)


async def test_a_server_that_cannot_start_is_reported_and_the_session_opens(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        servers = [
            stdio_server("good"),
            stdio_server("bad").model_copy(update={"command": "/nonexistent/mcp-server"}),
        ]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        await agent.client.wait_for(lambda updates: "bad" in agent.client.text(sid))
        notice = agent.client.text(sid)
        assert "MCP server 'bad' failed to start" in notice and "/nonexistent/mcp-server" in notice
        assert "MCP server 'bad' failed to start" in agent.stderr()
        await agent.prompt(sid, 'tool good__add {"a": 1, "b": 1}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["2"]


async def test_a_server_that_exits_at_once_is_reported(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        quitter = stdio_server("quitter").model_copy(update={"args": ["-c", "raise SystemExit(3)"]})
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[quitter])).session_id
        await agent.client.wait_for(lambda updates: "quitter" in agent.client.text(sid))
        assert "MCP server 'quitter' failed to start" in agent.client.text(sid)
        assert await agent.prompt(sid, "echo fine") == "end_turn"


async def test_a_slow_server_is_abandoned_after_the_timeout_and_its_process_stopped(serve_mcp, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # 5 s: time enough for the fast one on a busy machine.
    async with serve_mcp(env={"LANGACP_MCP_TIMEOUT": "5"}) as agent:
        await agent.initialize()
        servers = [stdio_server("slow", "--pid-file", str(pid_file), "--slow-start", "60"), stdio_server("fast")]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        await agent.client.wait_for(lambda updates: "slow" in agent.client.text(sid))
        assert "MCP server 'slow' did not start within 5 s" in agent.client.text(sid)
        await agent.prompt(sid, 'tool fast__add {"a": 2, "b": 2}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["4"]
        assert await gone(await read_pid(pid_file))  # stopped without waiting for the session to close


async def test_failure_notices_follow_the_session_new_response(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        bad = stdio_server("bad").model_copy(update={"command": "/nonexistent/mcp-server"})
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[bad])).session_id
        await agent.client.wait_for(lambda updates: bool(agent.client.of(sid)))
        # Every update carries the session id the response announced (none was sent before it).
        assert {s for s, _ in agent.client.updates} == {sid}


async def test_resume_reconnects_the_servers_it_is_given(serve_mcp, tmp_path: Path) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        first_pid, second_pid = tmp_path / "pid1", tmp_path / "pid2"
        server = stdio_server("s", "--pid-file", str(first_pid))
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])).session_id
        old = await read_pid(first_pid)
        await agent.conn.close_session(session_id=sid)
        assert await gone(old)
        server = stdio_server("s", "--pid-file", str(second_pid))
        await agent.conn.resume_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[server])
        await agent.prompt(sid, "tool s__pid {}")
        new = await read_pid(second_pid)
        assert new != old and texts(last_tool_call(agent.client, sid)[2]) == [str(new)]


async def test_load_reconnects_the_servers_it_is_given(serve_mcp, tmp_path: Path) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[stdio_server("s")])).session_id
        await agent.conn.close_session(session_id=sid)
        pid_file = tmp_path / "pid"
        server = stdio_server("s", "--pid-file", str(pid_file))
        await agent.conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[server])
        await agent.prompt(sid, "tool s__pid {}")
        assert texts(last_tool_call(agent.client, sid)[2]) == [str(await read_pid(pid_file))]


async def test_a_session_that_fails_to_open_stops_its_servers(serve_mcp, tmp_path: Path) -> None:
    import acp

    failing = f"{Path(__file__).resolve().with_name('mcp_slow_target.py')}:failing"
    pid_file = tmp_path / "pid"
    async with serve_mcp(target=failing) as agent:
        await agent.initialize()
        server = stdio_server("s", "--pid-file", str(pid_file))
        try:
            await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])
        except acp.RequestError as exc:
            assert "cannot be built" in str(exc.data)
        else:
            raise AssertionError("session/new should have failed")
        assert await gone(await read_pid(pid_file))


async def test_cancel_during_an_mcp_call_keeps_the_server_usable(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[stdio_server("s")])).session_id
        turn = asyncio.ensure_future(agent.prompt(sid, 'tool s__sleep {"seconds": 60}'))
        await agent.client.wait_for(
            lambda updates: any(getattr(u, "status", None) == "in_progress" for _, u in updates)
        )
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 15) == "cancelled"
        await agent.prompt(sid, 'tool s__add {"a": 3, "b": 4}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["7"]


async def test_a_server_that_dies_fails_its_calls_not_the_session(serve_mcp) -> None:
    async with serve_mcp() as agent:
        await agent.initialize()
        servers = [stdio_server("doomed"), stdio_server("other")]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        assert await agent.prompt(sid, "tool doomed__crash {}") == "end_turn"
        assert last_tool_call(agent.client, sid)[1].status == "failed"
        assert await agent.prompt(sid, 'tool doomed__add {"a": 1, "b": 1}') == "end_turn"
        assert last_tool_call(agent.client, sid)[1].status == "failed"
        await agent.prompt(sid, 'tool other__add {"a": 1, "b": 1}')
        assert texts(last_tool_call(agent.client, sid)[2]) == ["2"]
