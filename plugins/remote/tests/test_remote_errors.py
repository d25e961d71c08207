"""Bad input and a bad network: clear errors, and the process keeps serving."""

from __future__ import annotations

import asyncio
import subprocess
from contextlib import suppress

from acp import RequestError, text_block

from langacp_remote.testing import LangGraphDevServer, free_port, serve_remote, serve_remote_command


def _serve_once(url: str, graph: str) -> subprocess.CompletedProcess[str]:
    command = serve_remote_command(url, graph)
    return subprocess.run(command, stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60)


def test_remote_server_down_at_start_is_one_line_and_exit_2() -> None:
    result = _serve_once(f"http://127.0.0.1:{free_port()}", "agent")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("langacp: cannot reach the LangGraph server at http://127.0.0.1:")
    assert result.stdout == ""


def test_remote_unknown_graph_lists_what_the_server_serves(langgraph_server: LangGraphDevServer) -> None:
    result = _serve_once(langgraph_server.url, "no-such-graph")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "has no assistant or graph 'no-such-graph'" in line
    assert "agent (graph agent)" in line and "hitl (graph hitl)" in line


class Proxy:
    """A TCP proxy in front of the server whose connections the test can cut, as a network would."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.requests = bytearray()
        """Everything the clients sent (HTTP requests, headers included)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, seen: bytearray | None = None
    ) -> None:
        with suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                if seen is not None:
                    seen.extend(data)
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer, self.requests), self._pipe(up_reader, writer))

    def drop(self) -> None:
        """Break the open connections (a network blip); new ones are still let through."""
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    async def cut(self) -> None:
        """Refuse new connections and break the open ones."""
        assert self.server is not None
        self.server.close()
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()
        await self.server.wait_closed()


async def test_remote_server_lost_mid_turn_fails_that_prompt_and_the_next_reconnects(
    langgraph_server: LangGraphDevServer,
) -> None:
    proxy = Proxy(langgraph_server.port)
    await proxy.start()
    async with serve_remote(proxy.url, "agent") as agent:
        sid = await agent.start()
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("slow 30")]))
        await agent.client.wait_for(lambda _: bool(agent.client.of(sid, "tool_call")), timeout=30)
        await proxy.cut()
        try:
            await asyncio.wait_for(turn, 20)
        except RequestError as exc:
            assert "is unreachable" in str(exc.data), exc.data
        else:
            raise AssertionError("the prompt should have failed")
        # still down: a clear error again, the process keeps serving
        try:
            await agent.prompt(sid, "echo anyone there?")
        except RequestError as exc:
            assert "is unreachable" in str(exc.data), exc.data
        else:
            raise AssertionError("the prompt should have failed")

        await proxy.start()  # the network is back: the next prompt connects again
        deadline = asyncio.get_running_loop().time() + 30
        while True:  # the server may still be cancelling the run it lost (slower on a loaded machine)
            try:
                assert await agent.prompt(sid, "echo back again") == "end_turn"
                break
            except RequestError as exc:
                assert "another prompt is running" in str(exc.data), exc.data
                assert asyncio.get_running_loop().time() < deadline, "the server never freed the thread"
                await asyncio.sleep(0.1)
        assert agent.client.text(sid).endswith("back again")
    await proxy.cut()


async def test_remote_a_broken_run_stream_fails_the_prompt_without_reconnecting(
    langgraph_server: LangGraphDevServer,
) -> None:
    """The server cancels a run whose stream broke (``on_disconnect``): nothing to resume, the prompt fails."""
    proxy = Proxy(langgraph_server.port)
    await proxy.start()
    async with serve_remote(proxy.url, "agent") as agent:
        sid = await agent.start()
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("slow 30")]))
        await agent.client.wait_for(lambda _: bool(agent.client.of(sid, "tool_call")), timeout=30)
        sent = len(proxy.requests)
        proxy.drop()  # the stream breaks; the server is still there
        try:
            await asyncio.wait_for(turn, 60)
        except RequestError as exc:
            assert "is unreachable" in str(exc.data), exc.data
        else:
            raise AssertionError("the prompt should have failed")
        after = bytes(proxy.requests[sent:])
        assert b"/stream" not in after, after  # the run's stream was not asked for again
    await proxy.cut()


async def test_remote_graph_errors_are_clear_and_the_session_goes_on(langgraph_server: LangGraphDevServer) -> None:
    async with serve_remote(langgraph_server.url, "agent") as agent:
        sid = await agent.start()
        for prompt, reason in [("error the model broke", "RuntimeError: the model broke"), ("fail kaboom", "kaboom")]:
            try:
                await agent.prompt(sid, prompt)
            except RequestError as exc:
                assert "the graph failed on the server" in str(exc.data) and reason in str(exc.data), exc.data
            else:
                raise AssertionError(f"{prompt!r} should have failed")
        assert [u.status for u in agent.client.of(sid, "tool_call_update") if u.status] == ["failed"]
        agent.client.updates.clear()
        assert await agent.prompt(sid, "echo still going") == "end_turn"
        assert agent.client.text(sid) == "still going"


def test_remote_api_key_variable_not_set_is_one_line_and_exit_2() -> None:
    command = [*serve_remote_command("http://127.0.0.1:9", "agent"), "--api-key-env", "LANGACP_TEST_NO_SUCH_KEY"]
    result = subprocess.run(command, stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "--api-key-env LANGACP_TEST_NO_SUCH_KEY: that environment variable is not set" in line


async def test_remote_api_key_and_headers_reach_the_server(langgraph_server: LangGraphDevServer) -> None:
    proxy = Proxy(langgraph_server.port)
    await proxy.start()
    args = ["--api-key-env", "TEAM_KEY", "--header", "X-Team: blue"]
    async with serve_remote(proxy.url, "agent", args=args, env={"TEAM_KEY": "sekrit"}) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "echo authorised") == "end_turn"
    await proxy.cut()
    sent = bytes(proxy.requests).lower()
    assert b"x-api-key: sekrit" in sent and b"x-team: blue" in sent
