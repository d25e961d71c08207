"""CPU per turn and table sizes of the ``postgres`` store's pruning: a saver against another, in one process.

    python plugins/postgres/bench/pruning.py postgresql://postgres@127.0.0.1:5432/postgres [--turns 50] [--before REV]

One session of ``--turns`` turns of ``tool add {"a": i, "b": 1}`` (``langacp.testing.agent:agent``,
served in this process by ``serve_in_process`` with ``--store`` on a fresh database), once with the
``PruningSaver`` of git revision ``--before`` and once with the installed one, each twice: turns back
to back, and turns 0.3 s apart (a user reading the answer). CPU is this process's ``process_time``
(agent and in-process client) from the first measured turn until the thread is pruned and quiet,
divided by the turns; prunes are the calls of ``aprune``; sizes are ``pg_total_relation_size`` of
LangGraph's tables after the session closed (the store drained).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
import types
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

import langacp_postgres.checkpoints as checkpoints
from langacp.testing.harness import serve_in_process

ROOT = Path(__file__).resolve().parents[3]
TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def saver_of(rev: str) -> type:
    source = subprocess.check_output(
        ["git", "-C", str(ROOT), "show", f"{rev}:plugins/postgres/src/langacp_postgres/checkpoints.py"], text=True
    )
    module = types.ModuleType(f"checkpoints_{rev}")
    exec(compile(source, module.__name__, "exec"), module.__dict__)  # our own file at a revision
    return module.PruningSaver  # type: ignore[no-any-return]


def counting(cls: type, calls: list[int]) -> type:
    class Counting(cls):  # type: ignore[misc, valid-type]
        async def aprune(self, thread_ids, *, strategy="keep_latest"):  # type: ignore[no-untyped-def]
            calls.append(1)
            await super().aprune(thread_ids, strategy=strategy)

    return Counting


async def session(server: str, cls: type, turns: int, pause: float) -> dict[str, float]:
    name = f"langacp_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = urlunsplit(urlsplit(server)._replace(path="/" + name))
    calls: list[int] = []
    checkpoints.PruningSaver = counting(cls, calls)  # type: ignore[misc]
    try:
        async with serve_in_process(args=["--store", url]) as agent:
            sid = await agent.start()
            for i in range(2):  # warm-up
                assert await agent.prompt(sid, f'tool add {{"a": {i}, "b": 1}}') == "end_turn"
            await asyncio.sleep(1.5)
            calls.clear()
            start = time.process_time()
            for i in range(turns):
                assert await agent.prompt(sid, f'tool add {{"a": {i}, "b": 1}}') == "end_turn"
                if pause:
                    await asyncio.sleep(pause)
            await asyncio.sleep(1.5)  # the last prune (due within a second) runs inside the measurement
            cpu = time.process_time() - start
        with psycopg.connect(url, autocommit=True) as conn:
            sizes = {t: conn.execute(f"SELECT pg_total_relation_size('{t}')").fetchone()[0] for t in TABLES}
            (kept,) = conn.execute("SELECT count(*) FROM checkpoints").fetchone()
        return {
            "ms/turn": 1000 * cpu / turns,
            "prunes": len(calls),
            "rows": kept,
            **{f"{t} KB": n // 1024 for t, n in sizes.items()},
        }
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("server")
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--before", default="62b9633")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    variants = {"before": saver_of(args.before), "after": checkpoints.PruningSaver}
    for pause in (0.0, 0.3):
        for round_ in range(args.rounds):
            for label, cls in variants.items():
                row = await session(args.server, cls, args.turns, pause)
                cells = "  ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items())
                print(f"pause {pause:.1f}s round {round_} {label:6}  {cells}", flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
