"""``langacp.client.AcpConnection`` against the raw SDK client, streaming, measured in the same run.

Run from the repository root::

    python tests/bench/bench_client.py [--runs N] [--tokens N]

The agent streams ``--tokens`` one-word ``agent_message_chunk`` notifications per turn as fast as
it can, so the client's cost per notification is what differs. Agents (each a subprocess over
real pipes, started once per client and reused):

- ``python``: a minimal agent on the Python SDK (``acp.run_agent``), written below;
- ``node``: the agent on the ACP TypeScript SDK of tests/fixtures/ts_agent (when node and npm are
  installed; npm installs the SDK into a temporary directory).

Clients, turns interleaved (who goes first rotates), each the median of ``--runs`` turns (tokens/s = tokens / seconds
from sending ``session/prompt`` to having its response and every update):

- ``raw SDK``: ``acp.spawn_agent_process`` (with our environment and the same line limit) and a
  client object that appends each chunk's text;
- ``AcpConnection.prompt``: the whole answer as ``PromptResult.text`` (default local handler);
- ``stream_prompt``: the same, iterating over every ``SessionNotification``;
- ``+ RecordingHandler``: ``prompt`` with every chunk recorded as an event (in memory).

Ratio = client / raw SDK for tokens/s (goal: >= 0.9); the client process's CPU time per token
(``time.process_time``) is also shown: on a shared machine it is steadier than wall time, and it
is the client's own cost. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp import spawn_agent_process, text_block

from langacp.client import AcpConnection, RecordingHandler
from langacp.client.connection import STDIO_LIMIT
from ts_agent_support import NoNode, install_ts_agent

PY_AGENT = """
import asyncio, uuid
from acp import run_agent, update_agent_message_text
from acp.schema import AgentCapabilities, InitializeResponse, NewSessionResponse, PromptResponse

class Agent:
    def on_connect(self, conn):
        self.conn = conn
    async def initialize(self, protocol_version, **_):
        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities())
    async def new_session(self, cwd, **_):
        return NewSessionResponse(session_id=uuid.uuid4().hex)
    async def prompt(self, prompt, session_id, **_):
        n = int(prompt[0].text.split()[1])
        for i in range(n):
            await self.conn.session_update(session_id, update_agent_message_text(f"t{i} "))
        return PromptResponse(stop_reason="end_turn")
    async def cancel(self, session_id, **_):
        pass

asyncio.run(run_agent(Agent()))
"""

Turn = Callable[[str], Awaitable[str]]


class RawClient:
    """The least a client must do: take each update, keep the text."""

    def __init__(self) -> None:
        self.text: list[str] = []

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.text.append(update.content.text)

    async def request_permission(self, **_: Any) -> Any:
        raise NotImplementedError


async def _raw(command: list[str], cwd: str, stack: contextlib.AsyncExitStack) -> Turn:
    client = RawClient()
    # spawned as AcpConnection spawns (our environment, the same line limit): only the client differs
    transport = {"stderr": sys.stderr, "limit": STDIO_LIMIT}
    conn, _process = await stack.enter_async_context(
        spawn_agent_process(client, command[0], *command[1:], cwd=cwd, env=dict(os.environ), transport_kwargs=transport)
    )
    await conn.initialize(protocol_version=1)
    sid = (await conn.new_session(cwd=cwd)).session_id

    async def turn(prompt: str) -> str:
        client.text.clear()
        await conn.prompt(session_id=sid, prompt=[text_block(prompt)])
        return "".join(client.text)

    return turn


async def _connection(command: list[str], cwd: str, stack: contextlib.AsyncExitStack, how: str) -> Turn:
    conn = await stack.enter_async_context(AcpConnection(handler=RecordingHandler() if how == "record" else None))
    await conn.spawn(command[0], command[1:], cwd=cwd)
    await conn.initialize()
    sid = (await conn.new_session(cwd)).session_id

    async def turn(prompt: str) -> str:
        if how == "stream":
            stream = conn.stream_prompt(sid, prompt)
            parts = [note.update.content.text async for note in stream]
            return "".join(parts)
        return (await conn.prompt(sid, prompt)).text

    return turn


async def _measure(command: list[str], tokens: int, runs: int, cwd: str) -> dict[str, float]:
    expected = "".join(f"t{i} " for i in range(tokens))
    async with contextlib.AsyncExitStack() as stack:
        clients = {
            "raw SDK": await _raw(command, cwd, stack),
            "AcpConnection.prompt": await _connection(command, cwd, stack, "prompt"),
            "stream_prompt": await _connection(command, cwd, stack, "stream"),
            "+ RecordingHandler": await _connection(command, cwd, stack, "record"),
        }
        times: dict[str, list[float]] = {name: [] for name in clients}
        cpu: dict[str, list[float]] = {name: [] for name in clients}
        for name, turn in clients.items():  # warm up
            assert await turn("tokens 10") == "".join(f"t{i} " for i in range(10)), name
        order = list(clients.items())
        for run in range(runs):
            for name, turn in order[run % len(order) :] + order[: run % len(order)]:  # each goes first in turn
                started, started_cpu = time.perf_counter(), time.process_time()
                text = await turn(f"tokens {tokens}")
                times[name].append(time.perf_counter() - started)
                cpu[name].append(time.process_time() - started_cpu)
                assert text == expected, name
    return {
        name: (tokens / statistics.median(times[name]), statistics.median(cpu[name]) / tokens * 1e6) for name in clients
    }


def _report(agent: str, rates: dict[str, tuple[float, float]]) -> None:
    base, base_cpu = rates["raw SDK"]
    print(f"\n{agent} agent: tokens/s (median) and ratio; client CPU per token and ratio, against the raw SDK client")
    for name, (rate, cpu) in rates.items():
        print(f"  {name:<24} {rate:>9,.0f}/s {rate / base:5.2f}x   {cpu:6.1f} µs {cpu / base_cpu:5.2f}x")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tokens", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="langacp-bench-client-") as tmp:
        agent = Path(tmp) / "agent.py"
        agent.write_text(PY_AGENT)
        _report("python", await _measure([sys.executable, str(agent)], args.tokens, args.runs, tmp))
        try:
            node = install_ts_agent(Path(tmp) / "ts")
        except NoNode as exc:
            print(f"\nnode agent: skipped ({exc})")
            return
        _report("node", await _measure(node, args.tokens, args.runs, tmp))


if __name__ == "__main__":
    asyncio.run(main())
