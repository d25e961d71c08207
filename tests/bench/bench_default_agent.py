"""What the default agent and ``langacp chat`` add to a cold start, against the scripted test agent.

Run from the repository root::

    python tests/bench/bench_default_agent.py [--runs N]

Rows (median of N interleaved runs, core plugins only, ``LANGACP_DEMO_DELAY=0``):

- spawn → ``initialize``, → ``session/new``, → the first answer (``hello``), for ``langacp serve``
  (the default agent with the offline demo model) against ``langacp serve
  langacp.testing.agent:agent`` (``echo hello``) driven by the same SDK client. Ratio ≈ 1: the
  default agent's imports (file tools, todo middleware, demo model) cost nothing noticeable.
- ``langacp chat --prompt hello`` wall time (spawn of the chat, which spawns the agent, to its
  exit) against the SDK client's spawn → first answer of the same agent: what the terminal
  client adds (rich, its own start-up, the agent's shutdown).

Nothing is asserted; the script prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from acp import text_block

from langacp.client import RecordingClient, spawn_agent

REPO = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "langacp.cli", "serve"]
AGENTS = {
    "default agent": (SERVE, "hello"),
    "scripted test agent": ([*SERVE, "langacp.testing.agent:agent"], "echo hello"),
}
ENV = {**os.environ, "LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1", "LANGACP_DEMO_DELAY": "0"}


async def _agent_times(command: list[str], prompt: str) -> tuple[float, float, float]:
    client = RecordingClient()
    start = time.perf_counter()
    with open(os.devnull, "w") as stderr:
        async with spawn_agent(command, client, env=ENV, cwd=str(REPO), stderr=stderr) as (conn, _):
            await conn.initialize(protocol_version=1)
            initialized = time.perf_counter() - start
            session_id = (await conn.new_session(cwd=str(REPO), mcp_servers=[])).session_id
            opened = time.perf_counter() - start
            await conn.prompt(session_id=session_id, prompt=[text_block(prompt)])
            answered = time.perf_counter() - start
    return initialized, opened, answered


def _chat_time() -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "langacp.cli", "chat", "--prompt", "hello"],
        env=ENV,
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


async def run(runs: int) -> str:
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in AGENTS}
    chat: list[float] = []
    for _ in range(runs):
        for name, (command, prompt) in AGENTS.items():
            times[name].append(await _agent_times(command, prompt))
        chat.append(await asyncio.to_thread(_chat_time))
    medians = {name: [statistics.median(t[i] for t in rows) for i in range(3)] for name, rows in times.items()}
    default, scripted = medians["default agent"], medians["scripted test agent"]
    rows = [
        f"| Measurement (median of {runs}) | default agent | scripted test agent | ratio |",
        "|---|---|---|---|",
    ]
    for i, label in enumerate(("spawn → initialize", "spawn → session/new", "spawn → first answer")):
        rows.append(f"| {label} | {default[i]:.3f} s | {scripted[i]:.3f} s | {default[i] / scripted[i]:.2f}× |")
    chat_median = statistics.median(chat)
    rows.append(
        f"| `langacp chat --prompt hello` (whole run) vs SDK client spawn → first answer | {chat_median:.3f} s "
        f"| {default[2]:.3f} s (default agent) | {chat_median / default[2]:.2f}× |"
    )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(asyncio.run(run(args.runs)))
    print(f"\n{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, core plugins only")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
