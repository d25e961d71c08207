"""What langacp-modes and langacp-commands add, against the core alone, measured in the same run.

Run from the repository root (both plugins installed)::

    python tests/bench/bench_modes.py [--runs N] [--tools N]

Rows (median of N interleaved runs; each agent process is started once and reused):

- ``session/new``: the core alone against ``-p modes -p commands`` (reading the config files,
  building the ``switch_mode`` tool and the mode middleware, the ``available_commands_update``).
- a turn of ``tools N`` (N sequential ``add`` calls, N + 1 model calls) in ``agentic`` mode (so
  nothing is asked): the mode check on every tool call and the middleware on every model call.
- ``/help`` against ``echo hi`` with both plugins: a slash command answered without the model
  against the cheapest model turn.

Nothing is asserted; the script prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from acp import text_block

from langacp.client import RecordingClient, spawn_agent

SERVE = [sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent"]


async def _timed(action: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await action()
    return time.perf_counter() - started


async def main(runs: int, tools: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    results: dict[str, dict[str, list[float]]] = {"core": {}, "modes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        env["XDG_CONFIG_HOME"] = tmp  # no user config: the built-in modes
        cwd = str(Path(tmp))
        commands = {"core": SERVE, "modes": [*SERVE, "-p", "modes", "-p", "commands"]}
        async with (
            spawn_agent(commands["core"], RecordingClient(), env=env, stderr=open(os.devnull, "w")) as (core, _),
            spawn_agent(commands["modes"], RecordingClient(), env=env, stderr=open(os.devnull, "w")) as (modes, _),
        ):
            conns = {"core": core, "modes": modes}
            for conn in conns.values():
                await conn.initialize(protocol_version=1)
                await conn.new_session(cwd=cwd)  # warm: imports done
            for _ in range(runs):
                for name, conn in conns.items():
                    sid = ""

                    async def new(conn: Any = conn) -> None:
                        nonlocal sid
                        sid = (await conn.new_session(cwd=cwd)).session_id

                    results[name].setdefault("session/new", []).append(await _timed(new))
                    if name == "modes":
                        await conn.set_session_mode(session_id=sid, mode_id="agentic")
                    turn = f"tools {tools}"
                    results[name].setdefault(turn, []).append(
                        await _timed(lambda c=conn, s=sid, t=turn: c.prompt(session_id=s, prompt=[text_block(t)]))
                    )
                    if name == "modes":
                        for text in ("/help", "echo hi"):
                            results[name].setdefault(text, []).append(
                                await _timed(
                                    lambda c=conn, s=sid, t=text: c.prompt(session_id=s, prompt=[text_block(t)])
                                )
                            )
    med = {name: {row: statistics.median(v) for row, v in rows.items()} for name, rows in results.items()}
    print(f"| row (median of {runs}) | core alone | modes + commands | ratio |")
    print("|---|---|---|---|")
    for row in ("session/new", f"tools {tools}"):
        a, b = med["core"][row], med["modes"][row]
        print(f"| {row} | {a * 1000:.1f} ms | {b * 1000:.1f} ms | {b / a:.2f} |")
    a, b = med["modes"]["echo hi"], med["modes"]["/help"]
    row = "`/help` against `echo hi` (modes + commands; columns: echo, /help)"
    print(f"| {row} | {a * 1000:.1f} ms | {b * 1000:.1f} ms | {b / a:.2f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tools", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.tools))
