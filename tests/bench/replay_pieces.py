"""``session/load``'s replay against ``aget_tuple`` of the same checkpoint, timed apart in one process.

Run from the repository root::

    python tests/bench/replay_pieces.py [--rounds N] [--base DIR] [--profile]

A 250-turn session (a question, an ``add`` tool call, its result, an answer: the forms table's
load row) is stored with ``langacp-sqlite``; once the plugins are loaded, what exists is frozen
out of the collector's reach as ``langacp serve`` does (``bench.tune_like_serve``). Then, round by
round, this process's CPU time of: ``aget_tuple`` of its checkpoint (LangGraph); the replay of
the messages it read (:func:`langacp.replay.replay_messages` with every installed plugin, into a
sink that gives each message chunk its id as the session's outbox does); and the replayed updates
dumped as they are sent (:func:`langacp.protocol.update_json`). Each piece's median, in µs per replayed turn and as a
multiple of ``aget_tuple``. ``--base DIR`` also runs the same in another source tree (served
through ``PYTHONPATH``), in a child process alternating with this tree's, so the machine's load hits
both alike. ``--profile`` prints the replay's ``cProfile`` (by own time) instead. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TURNS = 250


class Sink:
    """Collects updates as the session's outbox queues them (a message chunk gets its message's id)."""

    def __init__(self) -> None:
        from langacp.bridge.outbox import _unnamed_chunk, with_message_id

        self.updates: list[Any] = []
        self._unnamed, self._with_id = _unnamed_chunk, with_message_id

    def put(self, update: Any, message_id: str | None = None) -> None:
        if self._unnamed(update):
            update = self._with_id(update, message_id or "fresh")
        self.updates.append(update)


async def _stored(url: str) -> tuple[Any, Any]:
    """The stored session's store (open) and its thread's config."""
    sys.path.insert(0, str(HERE))
    import bench
    from langacp.stores import open_store

    session_id, _ = await bench._store_session(url, TURNS)
    store: Any = open_store(url)
    await store.aopen()
    return store, {"configurable": {"thread_id": session_id, "checkpoint_ns": ""}}


async def _child(rounds: int, profile: bool) -> dict[str, list[float]]:
    import bench
    from langacp.plugins import load_plugins
    from langacp.protocol import update_json
    from langacp.replay import replay_messages
    from langacp.types import SessionContext

    with tempfile.TemporaryDirectory(prefix="langacp-replay-") as tmp:
        store, config = await _stored(f"sqlite://{Path(tmp) / 'sessions.db'}")
        try:
            plugins = load_plugins()
            session = SessionContext(session_id="s", cwd=str(REPO), plugins=plugins)

            async def messages() -> list[Any]:  # read afresh, as a load reads them
                tup = await store.checkpointer.aget_tuple(config)
                return list(tup.checkpoint["channel_values"]["messages"])

            replay_messages(plugins, session, await messages(), Sink())  # type: ignore[arg-type]  # warm
            bench.tune_like_serve()  # what start-up made is frozen out of the collector's way, as serve does
            if profile:
                import cProfile
                import pstats

                profiler = cProfile.Profile()
                for _ in range(rounds):
                    read = await messages()
                    profiler.enable()
                    replay_messages(plugins, session, read, Sink())  # type: ignore[arg-type]
                    profiler.disable()
                pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(40)
                return {}
            times: dict[str, list[float]] = {"aget_tuple": [], "replay": [], "dump": []}
            for index in range(rounds + 1):  # the first round warms up
                gc.collect()
                before = time.process_time()
                tup = await store.checkpointer.aget_tuple(config)
                checkpoint = time.process_time() - before
                read = list(tup.checkpoint["channel_values"]["messages"])
                sink = Sink()
                before = time.process_time()
                replay_messages(plugins, session, read, sink)  # type: ignore[arg-type]
                replay = time.process_time() - before
                before = time.process_time()
                for update in sink.updates:
                    update_json(update)
                dump = time.process_time() - before
                if index:
                    times["aget_tuple"].append(checkpoint)
                    times["replay"].append(replay)
                    times["dump"].append(dump)
            return times
        finally:
            await store.aclose()


def _run_child(tree: Path, rounds: int) -> dict[str, list[float]]:
    env = dict(os.environ)
    if tree != REPO:
        paths = [tree / "core" / "src", *sorted((tree / "plugins").glob("*/src"))]
        env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, str(HERE / "replay_pieces.py"), "--child", "--rounds", str(rounds)],
        env=env,
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--base", type=Path, help="another source tree, measured alternately")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child or args.profile:
        times = asyncio.run(_child(args.rounds, args.profile))
        if args.child:
            print(json.dumps(times))
        return
    trees = {"this": REPO, **({"base": args.base.resolve()} if args.base else {})}
    per_round = max(2, args.rounds // 5)
    collected: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    for _ in range(-(-args.rounds // per_round)):
        for name, tree in trees.items():
            for key, values in _run_child(tree, per_round).items():
                collected[name].setdefault(key, []).extend(values)
    for name, times in collected.items():
        base = statistics.median(times["aget_tuple"])
        cells = []
        for key in ("aget_tuple", "replay", "dump"):
            median = statistics.median(times[key])
            ratio = statistics.median(t / c for t, c in zip(times[key], times["aget_tuple"], strict=True))
            cells.append(f"{key} {median / TURNS * 1e6:.1f} µs/turn ({ratio:.2f}×)")
        print(f"{name}: " + "; ".join(cells) + f"  [aget_tuple {base * 1000:.1f} ms, {len(times['replay'])} rounds]")


if __name__ == "__main__":
    main()
