"""The remote path (``langacp serve --remote`` → ``langgraph dev``) against the same graph served locally.

Run from the repository root (langacp-remote with its ``test`` extra installed)::

    python tests/bench/bench_remote.py [--runs N] [--tokens N] [--tools N]

The scripted test agent's precompiled graph (``langacp.testing.agent:graph``) is served twice in
the same run: by ``langacp serve`` (in-process, memory store) and by a ``langgraph dev`` server
(in-memory runtime) that ``langacp serve --remote`` streams from. Rows (medians of N
interleaved runs, each agent process started once and reused):

- tokens/s of a ``long N`` turn (one model call streaming N tokens);
- tool calls/s of a ``tools N`` turn (N sequential tool calls, N + 1 model calls);
- cancel latency: ``session/cancel`` sent while a tool sleeps → the ``cancelled`` response;
- 20 concurrent sessions over 4 langacp processes, each running ``long N / 4``: total tokens/s;
- the server's own ceiling: tokens/s of the same run streamed by the SDK alone, without langacp.

Each row is measured at two model speeds: unlimited (the scripted model yields as fast as it
can, so the server's own per-token cost shows) and 100 chunks/s (``LANGACP_TEST_TOKEN_DELAY``,
faster than hosted models stream), on both paths.

Nothing is asserted; the script prints a Markdown table. Goals (issue 20): remote streaming at
least 0.5x local, cancel within 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from acp import text_block

import langacp.testing.agent
from langacp.client import RecordingClient, spawn_agent
from langacp_remote.testing import LangGraphDevServer, serve_remote_command

LOCAL = [sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:graph", "--store", "memory"]
PROCESSES = 4
SESSIONS = 20


@asynccontextmanager
async def _agent(command: list[str], env: dict[str, str]) -> AsyncIterator[tuple[Any, RecordingClient]]:
    client = RecordingClient()
    with open(os.devnull, "w") as devnull:
        async with spawn_agent(command, client, env=env, stderr=devnull) as (conn, _process):
            await conn.initialize(protocol_version=1)
            yield conn, client


async def _prompt(conn: Any, sid: str, text: str) -> Any:
    return await conn.prompt(session_id=sid, prompt=[text_block(text)])


async def _timed_prompt(conn: Any, sid: str, text: str) -> float:
    started = time.perf_counter()
    await _prompt(conn, sid, text)
    return time.perf_counter() - started


async def _cancel_latency(conn: Any, client: RecordingClient, sid: str) -> float:
    turn = asyncio.ensure_future(_prompt(conn, sid, "slow 30"))
    before = len(client.of(sid, "tool_call"))
    await client.wait_for(lambda _: len(client.of(sid, "tool_call")) > before, timeout=30)
    await asyncio.sleep(0.2)  # the tool is running
    started = time.perf_counter()
    await conn.cancel(session_id=sid)
    response = await turn
    elapsed = time.perf_counter() - started
    assert response.stop_reason == "cancelled", response
    return elapsed


async def _concurrent(commands: list[list[str]], env: dict[str, str], cwd: str, tokens: int) -> float:
    """Total tokens/s of SESSIONS sessions spread over the processes, all prompting at once."""
    async with AsyncExitStack() as stack:
        agents = [await stack.enter_async_context(_agent(command, env)) for command in commands]
        sessions = []
        for index in range(SESSIONS):
            conn, _ = agents[index % len(agents)]
            sessions.append((conn, (await conn.new_session(cwd=cwd)).session_id))
        await asyncio.gather(*(_prompt(conn, sid, "echo warm") for conn, sid in sessions))
        started = time.perf_counter()
        await asyncio.gather(*(_prompt(conn, sid, f"long {tokens}") for conn, sid in sessions))
        return SESSIONS * tokens / (time.perf_counter() - started)


async def _raw_sdk_rate(url: str, tokens: int) -> float:
    """tokens/s of a ``long N`` run streamed by the SDK alone (no langacp): the server's own ceiling."""
    from langgraph_sdk import get_client

    client = get_client(url=url)
    thread = await client.threads.create()
    started = time.perf_counter()
    messages = [{"role": "user", "content": f"long {tokens}"}]
    async for _part in client.runs.stream(
        thread["thread_id"], "agent", input={"messages": messages}, stream_mode=["messages-tuple", "updates"]
    ):
        pass
    return tokens / (time.perf_counter() - started)


async def measure(runs: int, tokens: int, tools: int, delay: float) -> dict[str, dict[str, list[float]]]:
    """Every row for one model speed (``delay`` seconds per streamed chunk, on both paths)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["LANGACP_TEST_TOKEN_DELAY"] = str(delay)
    graph_file = Path(langacp.testing.agent.__file__).resolve()
    rows: dict[str, dict[str, list[float]]] = {"local": {}, "remote": {}, "sdk": {}}
    server = LangGraphDevServer({"agent": f"{graph_file}:graph"}, env={"LANGACP_TEST_TOKEN_DELAY": str(delay)})
    with tempfile.TemporaryDirectory() as cwd, server:
        commands = {"local": LOCAL, "remote": serve_remote_command(server.url, "agent")}
        async with _agent(commands["local"], env) as local, _agent(commands["remote"], env) as remote:
            agents = {"local": local, "remote": remote}
            sids = {name: (await conn.new_session(cwd=cwd)).session_id for name, (conn, _) in agents.items()}
            for name, (conn, _) in agents.items():  # warm: imports, first run
                await _prompt(conn, sids[name], "tools 2")
            for _ in range(runs):
                for name, (conn, client) in agents.items():
                    sid = (await conn.new_session(cwd=cwd)).session_id  # a fresh thread: no history to load
                    seconds = await _timed_prompt(conn, sid, f"long {tokens}")
                    rows[name].setdefault("tokens/s", []).append(tokens / seconds)
                    sid = (await conn.new_session(cwd=cwd)).session_id
                    seconds = await _timed_prompt(conn, sid, f"tools {tools}")
                    rows[name].setdefault("tool calls/s", []).append(tools / seconds)
                    latency = await _cancel_latency(conn, client, sids[name])
                    rows[name].setdefault("cancel (ms)", []).append(latency * 1000)
                rows["sdk"].setdefault("tokens/s", []).append(await _raw_sdk_rate(server.url, tokens))
        for name in ("local", "remote"):
            rate = await _concurrent([commands[name]] * PROCESSES, env, cwd, max(1, tokens // 4))
            rows[name].setdefault(f"{SESSIONS} sessions / {PROCESSES} processes, tokens/s", []).append(rate)
    return rows


async def main(runs: int, tokens: int, tools: int, delays: list[float]) -> None:
    print("| model speed | measurement (median) | local | remote | remote / local | SDK alone (server ceiling) |")
    print("|---|---|---|---|---|---|")
    for delay in delays:
        rows = await measure(runs, tokens, tools, delay)
        speed = "unlimited" if delay == 0 else f"{1 / delay:.0f} chunks/s"
        for key in rows["local"]:
            local_value, remote_value = (statistics.median(rows[name][key]) for name in ("local", "remote"))
            sdk = f"{statistics.median(rows['sdk'][key]):.1f}" if key in rows["sdk"] else ""
            ratio = remote_value / local_value
            print(f"| {speed} | {key} | {local_value:.1f} | {remote_value:.1f} | {ratio:.2f}x | {sdk} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--tools", type=int, default=10)
    parser.add_argument(
        "--delays", type=float, nargs="+", default=[0.0, 0.01], help="seconds per streamed chunk (0: as fast as it can)"
    )
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.tokens, args.tools, args.delays))
