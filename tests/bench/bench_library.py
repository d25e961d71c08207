"""The library path against the server path, measured in the same run.

Run from the repository root::

    python tests/bench/bench_library.py [--runs N] [--tokens N] [--tools N]

``examples/own_acp_agent.py`` (a hand-written SDK agent using ``langacp.lib``: the ACP
middleware and ``ACPCallbackHandler``) and ``langacp serve langacp.testing.workspace:agent``
each run as a subprocess with the core's plugins only, over real pipes. Rows (median of N
interleaved turns; each agent process is started once and reused):

- ``long N`` with a model that yields per token (``LANGACP_TEST_TOKEN_DELAY=1e-9``): the time
  until the prompt response, and how many ``agent_message_chunk`` messages carried the text.
- ``tools N``: N + 1 model calls and N failing tool calls (the workspace agent has no ``add``).

Ratio = library / server (1.0: the library adds nothing). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from acp import text_block

from langacp.client import RecordingClient, spawn_agent

REPO = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.workspace:agent"]
LIBRARY = [sys.executable, str(REPO / "examples" / "own_acp_agent.py")]


class Agent:
    """One agent subprocess with an open session."""

    def __init__(self, conn: Any, client: RecordingClient, session_id: str) -> None:
        self.conn, self.client, self.session_id = conn, client, session_id

    async def turn(self, text: str) -> tuple[float, int]:
        """Seconds until the response, and the message chunks the turn sent."""
        self.client.updates.clear()
        started = time.perf_counter()
        await self.conn.prompt(session_id=self.session_id, prompt=[text_block(text)])
        return time.perf_counter() - started, len(self.client.of(self.session_id, "agent_message_chunk"))


async def _start(command: list[str], env: dict[str, str], stack: Any, cwd: str) -> Agent:
    client = RecordingClient()
    conn, _process = await stack.enter_async_context(spawn_agent(command, client, env=env, stderr=sys.stderr))
    await conn.initialize(protocol_version=1)
    session_id = (await conn.new_session(cwd=cwd)).session_id
    await conn.prompt(session_id=session_id, prompt=[text_block("echo warm up")])
    return Agent(conn, client, session_id)


async def run(runs: int, tokens: int, tools: int) -> list[tuple[str, float, float, str]]:
    from contextlib import AsyncExitStack

    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["LANGACP_TEST_TOKEN_DELAY"] = "1e-9"
    rows = []
    with tempfile.TemporaryDirectory() as cwd:
        async with AsyncExitStack() as stack:
            server = await _start(SERVER, env, stack, cwd)
            library = await _start(LIBRARY, env, stack, cwd)
            for prompt in (f"long {tokens}", f"tools {tools}"):
                times: dict[str, list[float]] = {"server": [], "library": []}
                messages: dict[str, list[int]] = {"server": [], "library": []}
                for _ in range(runs):  # interleaved, so both see the same machine
                    for name, agent in (("server", server), ("library", library)):
                        seconds, chunks = await agent.turn(prompt)
                        times[name].append(seconds)
                        messages[name].append(chunks)
                note = ""
                if prompt.startswith("long"):
                    server_msgs, library_msgs = (statistics.median(messages[n]) for n in ("server", "library"))
                    note = f"{server_msgs:.0f} / {library_msgs:.0f} msg"
                rows.append((prompt, statistics.median(times["server"]), statistics.median(times["library"]), note))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tokens", type=int, default=3000)
    parser.add_argument("--tools", type=int, default=30)
    args = parser.parse_args()
    rows = asyncio.run(run(args.runs, args.tokens, args.tools))
    print("| turn | server | library | ratio library / server | messages server / library |")
    print("|---|---|---|---|---|")
    for prompt, server, library, note in rows:
        print(f"| `{prompt}` | {server * 1000:.1f} ms | {library * 1000:.1f} ms | {library / server:.2f}× | {note} |")


if __name__ == "__main__":
    main()
