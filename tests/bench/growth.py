"""Growth rows: what one long session costs as it grows, and what open sessions cost, against the bare graph.

Run from the repository root (``nox -s bench`` runs it after the forms table)::

    python tests/bench/growth.py [--quick] [--turns 600] [--marks 1,100,300,600]
                                 [--sessions 50,100,200] [--no-turns] [--no-sessions] [--json PATH] [--record]

**Turns.** One session does N turns of ``tool add {"a": i, "b": 1}`` (one tool call, then the
answer ``done: i+1``): the factory form (``langacp serve langacp.testing.agent:agent``, every
installed plugin) with ``--store sqlite:///…``, against the same ``create_agent`` graph with
LangGraph's ``AsyncSqliteSaver`` on a file of its own in a probe process (**bare**, its turns
streamed with ``astream(stream_mode="messages")`` as the forms table's bare graph), both tuned
alike (the collector frozen after start-up, LangSmith's inline override). The two alternate
turn by turn, so the machine's load hits both alike. The client answers the permission request
for ``add`` with *allow always*, as ``forms.py`` does and a user does for a harmless tool: asked
once, then remembered (bare has no permission step at all). At each mark:

- **turn CPU**: the process's CPU time for one turn (agent process clock, every thread; bare:
  the probe's ``process_time``), the median of the last ``WINDOW`` turns before the mark; its
  ratio is the median of the per-turn ratios (turn *i* served / turn *i* bare) over the same
  turns, which the shared machine's load moves much less than either side's time.
- **DB bytes**: the database file plus its WAL; **head**: the bytes of the thread's latest
  checkpoint and its pending writes (what a load reads); DB / head says how much more than the
  conversation the file holds.
- **load**: ``session/load`` of the session (closed first), the agent's CPU until the response,
  every replayed update received, against ``aget_tuple`` of the same checkpoint in the bare probe.
  ``--loads`` pairs (a load, then a read) alternate; the row shows the median of each side and
  its ratio is the median of the per-pair ratios, as the turn CPU's is (a single load moved the
  ratio by 2-3× between runs).

**Sessions.** S sessions opened in one agent process (``langacp.testing.agent:shared_model_agent``:
the factory as users are told to write it, one model made once for every session, as the bare
graph has; the same turns as ``agent``), each with one ``echo hi`` turn and left open; RSS of the
process against a bare process holding S threads of the graph (``InMemorySaver``), both tuned
alike. And the live objects (``tracemalloc``) one more open idle session holds, in one process
running the agent class (the same factory) with a no-op client, against one more thread of the
bare graph.

Every ratio compares two numbers of this run; nothing is asserted on time. ``--record`` writes
the table into ``docs/benchmarks.md``; ``--quick``: 100 turns, 20 and 50 sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench as base  # the helpers of the older benchmark, next to this file

REPO = base.REPO
DOCS = REPO / "docs" / "benchmarks.md"
DOC_START = "<!-- growth:start -->"
DOC_END = "<!-- growth:end -->"
WINDOW = 9
"""Turns whose median is a mark's turn CPU (those ending at the mark)."""
YIELD = base.YIELD_DELAY
LOADS = 5
"""Pairs of a load of the session and an ``aget_tuple`` read in the bare probe at each mark: a row is their median."""
OPEN_KB_SESSIONS = 50
"""Sessions of the live-objects row (the process runs as many first, to warm up)."""
SESSIONS_TARGET = "langacp.testing.agent:shared_model_agent"
"""The factory of the open-sessions rows: its model shared by every session, as bare's."""


def prompt(i: int) -> str:
    return f'tool add {{"a": {i}, "b": 1}}'


def db_bytes(path: Path) -> int:
    """The database file (its write-ahead log apart: :func:`wal_bytes`)."""
    return path.stat().st_size


def wal_bytes(path: Path) -> int:
    """The write-ahead log: bounded by SQLite's auto-checkpoint (~4 MB), whatever the history."""
    wal = Path(f"{path}-wal")
    return wal.stat().st_size if wal.exists() else 0


def head_bytes(path: Path, thread_id: str) -> int:
    """Bytes of the thread's latest root checkpoint and of its pending writes."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        row = conn.execute(
            "SELECT checkpoint_id, length(checkpoint) + length(metadata) FROM checkpoints "
            "WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
            (thread_id,),
        ).fetchone()
        if row is None:
            return 0
        (writes,) = conn.execute(
            "SELECT coalesce(sum(length(value)), 0) FROM writes WHERE thread_id = ? AND checkpoint_ns = '' "
            "AND checkpoint_id = ?",
            (thread_id, row[0]),
        ).fetchone()
    return int(row[1]) + int(writes)


# -- the bare probe (a child process) -------------------------------------------------------------


def bare_turns_probe(db: str) -> None:
    """Serve commands on stdin: ``turns A B`` runs turns A..B-1, ``load`` reads the head, ``bytes``; JSON out."""

    async def go() -> None:
        from langchain.agents import create_agent
        from langchain_core.messages import AIMessageChunk
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        from langacp.testing.agent import TOOLS, make_model

        async with AsyncSqliteSaver.from_conn_string(db) as saver:
            await saver.conn.execute("PRAGMA journal_mode = WAL")
            graph = create_agent(make_model(), tools=TOOLS, system_prompt=base.SYSTEM_PROMPT, checkpointer=saver)
            config: Any = {"configurable": {"thread_id": "bare"}, "recursion_limit": base.RECURSION_LIMIT}
            warm = {"configurable": {"thread_id": "warm"}}
            await graph.ainvoke({"messages": [("user", prompt(0))]}, warm)
            await saver.adelete_thread("warm")
            base.tune_like_serve()
            print("ready", flush=True)
            loop = asyncio.get_running_loop()
            while line := await loop.run_in_executor(None, sys.stdin.readline):
                verb, *args = line.split()
                out: Any
                if verb == "turns":
                    out = []
                    for i in range(int(args[0]), int(args[1])):
                        cpu, wall = time.process_time(), time.perf_counter()
                        text = [  # streamed, as forms.py's bare graph and any ACP agent's turn are
                            message.content
                            async for message, _ in graph.astream(
                                {"messages": [("user", prompt(i))]}, config, stream_mode="messages"
                            )
                            if isinstance(message, AIMessageChunk) and isinstance(message.content, str)
                        ]
                        out.append((time.process_time() - cpu, time.perf_counter() - wall))
                        if "".join(text) != f"done: {i + 1}":
                            raise RuntimeError(f"bare turn {i}: {''.join(text)!r}")
                elif verb == "load":
                    cpu, wall = time.process_time(), time.perf_counter()
                    tup = await saver.aget_tuple({"configurable": {"thread_id": "bare", "checkpoint_ns": ""}})
                    out = (time.process_time() - cpu, time.perf_counter() - wall)
                    assert tup is not None
                else:
                    raise ValueError(line)
                print(json.dumps(out), flush=True)

    asyncio.run(go())


class BareProbe:
    def __init__(self, db: Path) -> None:
        self.db = db
        self.process: Any = None

    async def __aenter__(self) -> BareProbe:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--bare-turns",
            str(self.db),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=str(REPO),
            env={**os.environ, base.DELAY_ENV: repr(YIELD)},
        )
        if (await self.process.stdout.readline()).strip() != b"ready":
            raise base.BenchmarkError("the bare probe did not start")
        return self

    async def ask(self, line: str) -> Any:
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()
        answer = await self.process.stdout.readline()
        if not answer:
            raise base.BenchmarkError(f"the bare probe died on {line!r}")
        return json.loads(answer)

    async def __aexit__(self, *exc: object) -> None:
        self.process.stdin.close()
        await self.process.wait()


# -- turns ----------------------------------------------------------------------------------------


async def growth(turns: int, marks: list[int], chunk: int = 1, loads: int = LOADS) -> dict[str, Any]:
    """The turn rows: per mark, both sides' turn CPU, bytes and load."""
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="langacp-growth-") as tmp:
        served_db, bare_db = Path(tmp) / "served.db", Path(tmp) / "bare.db"
        client = base._make_client()
        client.answer = "allow_always"  # asked once for the harmless ``add``, as in forms.py
        env = {"LANGACP_MAX_MODEL_CALLS": "0"}
        store = ["--store", f"sqlite://{served_db}"]
        async with (
            base.agent_process(client, YIELD, store=store, env=env) as (conn, process),
            BareProbe(bare_db) as bare,
        ):
            clock = base.cpu_clock(process.pid)
            await base._initialize(conn)
            warm = await base._new_session(conn)
            await base._prompt(conn, warm, prompt(0))
            session = await base._new_session(conn)
            served: list[tuple[float, float]] = []
            bare_turns: list[tuple[float, float]] = []
            done = 0
            for mark in marks:
                while done < mark:
                    upto = min(mark, done + chunk)
                    for i in range(done, upto):
                        cpu = time.clock_gettime(clock) if clock is not None else 0.0
                        wall = time.perf_counter()
                        stop = await base._prompt(conn, session, prompt(i))
                        served.append((time.clock_gettime(clock) - cpu if clock else 0.0, time.perf_counter() - wall))
                        if stop != "end_turn":
                            raise base.BenchmarkError(f"turn {i}: {stop}")
                    bare_turns += await bare.ask(f"turns {done} {upto}")
                    done = upto
                window = slice(max(0, mark - WINDOW), mark)
                row: dict[str, float] = {
                    "cpu": statistics.median(c for c, _ in served[window]),
                    "wall": statistics.median(w for _, w in served[window]),
                    "bare_cpu": statistics.median(c for c, _ in bare_turns[window]),
                    "bare_wall": statistics.median(w for _, w in bare_turns[window]),
                    "cpu_ratio": statistics.median(
                        s / max(b, 1e-9) for (s, _), (b, _) in zip(served[window], bare_turns[window], strict=True)
                    ),
                    "bytes": db_bytes(served_db),
                    "wal": wal_bytes(served_db),
                    "bare_wal": wal_bytes(bare_db),
                    "head": head_bytes(served_db, session),
                    "bare_bytes": db_bytes(bare_db),
                    "bare_head": head_bytes(bare_db, "bare"),
                }
                pairs = []
                for _ in range(loads):  # alternated, so the machine's load hits both sides alike
                    pairs.append((await served_load(conn, client, clock, session, mark), await bare.ask("load")))
                row["load_cpu"] = statistics.median(served[0] for served, _ in pairs)
                row["load_wall"] = statistics.median(served[1] for served, _ in pairs)
                row["bare_load_cpu"] = statistics.median(bare[0] for _, bare in pairs)
                row["bare_load_wall"] = statistics.median(bare[1] for _, bare in pairs)
                row["load_ratio"] = statistics.median(served[0] / max(bare[0], 1e-9) for served, bare in pairs)
                row["loads"] = loads
                rows[str(mark)] = row
                print(f"turn {mark}: {json.dumps({k: round(v, 4) for k, v in row.items()})}", file=sys.stderr)
    return rows


async def served_load(conn: Any, client: Any, clock: int | None, session: str, mark: int) -> tuple[float, float]:
    """Close the session and load it back: the agent's CPU and the wall time until every update is in."""
    await conn.close_session(session_id=session)
    client.updates.clear()
    gc.collect()
    cpu = time.clock_gettime(clock) if clock is not None else 0.0
    wall = time.perf_counter()
    await conn.load_session(cwd=str(REPO), session_id=session, mcp_servers=[])
    elapsed = time.perf_counter() - wall
    agent_cpu = time.clock_gettime(clock) - cpu if clock is not None else 0.0
    calls = [u for u in client.of(session, "tool_call") if u.status == "completed"]
    if len(calls) != mark:
        raise base.BenchmarkError(f"session/load after {mark} turns replayed {len(calls)} tool calls")
    client.updates.clear()
    return agent_cpu, elapsed


# -- open sessions --------------------------------------------------------------------------------


def bare_sessions_probe(counts: str) -> None:
    """In a child process: S threads of the bare graph with ``echo hi``; print VmRSS (MB) at each count."""

    async def go() -> None:
        from langchain.agents import create_agent
        from langgraph.checkpoint.memory import InMemorySaver

        from langacp.testing.agent import TOOLS, make_model

        graph = create_agent(make_model(), tools=TOOLS, system_prompt=base.SYSTEM_PROMPT, checkpointer=InMemorySaver())
        await graph.ainvoke({"messages": [("user", "echo hi")]}, {"configurable": {"thread_id": "warm"}})
        base.tune_like_serve()
        out, done = {}, 0
        for count in map(int, counts.split(",")):
            for i in range(done, count):
                await graph.ainvoke({"messages": [("user", "echo hi")]}, {"configurable": {"thread_id": f"t{i}"}})
            done = count
            gc.collect()
            out[str(count)] = base._rss_mb(os.getpid())
        print(json.dumps(out))

    asyncio.run(go())


def open_kb_probe(n: int, top: int = 0) -> None:
    """In a child process: KB of live objects (``tracemalloc``) per open idle session, served and bare.

    Served: the agent class (:data:`SESSIONS_TARGET`, every installed plugin, memory
    store) with a no-op client; each session has one ``echo hi`` turn and stays open. Bare: one
    graph, a thread per session with the same turn. ``top``: print the largest allocation sites.
    """
    import tracemalloc

    from acp import text_block
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from langacp.agent import LangacpAgent
    from langacp.plugins import load_plugins
    from langacp.testing.agent import TOOLS, make_model

    class Quiet:
        async def session_update(self, **_: Any) -> None:
            return None

        async def request_permission(self, **_: Any) -> Any:
            from acp.schema import AllowedOutcome, RequestPermissionResponse

            return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))

    async def served(agent: Any, count: int) -> None:
        for _ in range(count):
            sid = (await agent.new_session(cwd=str(REPO))).session_id
            await agent.prompt(session_id=sid, prompt=[text_block("echo hi")])

    async def measure(work: Any) -> tuple[float, Any]:
        await work(n)  # warm: caches, interned strings, lazily built tables
        gc.collect()
        tracemalloc.start(25 if top else 1)
        before = tracemalloc.take_snapshot() if top else None
        start = tracemalloc.get_traced_memory()[0]
        await work(n)
        gc.collect()
        kb = (tracemalloc.get_traced_memory()[0] - start) / n / 1024
        after = tracemalloc.take_snapshot() if top else None
        tracemalloc.stop()
        return kb, (before, after)

    async def go() -> None:
        agent = LangacpAgent(SESSIONS_TARGET, load_plugins(), store_url="memory")
        agent.on_connect(Quiet())  # type: ignore[arg-type]
        await agent.initialize(protocol_version=1)
        served_kb, snaps = await measure(lambda count: served(agent, count))
        graph = create_agent(make_model(), tools=TOOLS, system_prompt=base.SYSTEM_PROMPT, checkpointer=InMemorySaver())
        threads = iter(range(10**9))

        async def bare(count: int) -> None:
            for _ in range(count):
                config = {"configurable": {"thread_id": f"t{next(threads)}"}}
                await graph.ainvoke({"messages": [("user", "echo hi")]}, config)

        bare_kb, _ = await measure(bare)
        if top:
            stats = snaps[1].compare_to(snaps[0], "traceback")
            print("by the innermost frame of langacp's code (else the allocating line):", file=sys.stderr)
            for site, size in _by_own_frame(stats).most_common(top):
                print(f"{size / n / 1024:7.2f} KB/session  {site}", file=sys.stderr)
            for stat in stats[:top]:
                print(f"{stat.size_diff / n / 1024:.2f} KB/session", file=sys.stderr)
                for line in stat.traceback.format()[-12:]:
                    print("   ", line, file=sys.stderr)
        print(json.dumps({"open_kb": served_kb, "bare_open_kb": bare_kb}))

    asyncio.run(go())


def _by_own_frame(stats: list[Any]) -> Counter[str]:
    """Allocation differences summed by the innermost frame in this repository's code (not its
    site-packages, not this benchmark): which of langacp's (or a plugin's) lines keeps them."""
    sites: Counter[str] = Counter()
    here = Path(__file__).resolve().parent
    for stat in stats:
        frames = list(stat.traceback)[::-1]  # innermost first
        own = next(
            (
                f
                for f in frames
                if f.filename.startswith(str(REPO))
                and "site-packages" not in f.filename
                and not f.filename.startswith(str(here))
            ),
            None,
        )
        frame = own or frames[0]
        name = frame.filename[len(str(REPO)) + 1 :] if own else frame.filename.split("site-packages/")[-1]
        sites[f"{name}:{frame.lineno}"] += stat.size_diff
    return sites


async def sessions(counts: list[int]) -> dict[str, Any]:
    """RSS with S open idle sessions, served (factory, ``--store memory``) and bare."""
    rows: dict[str, Any] = {}
    client = base._make_client()
    serve = [sys.executable, "-m", "langacp.cli", "serve", SESSIONS_TARGET]
    async with base.agent_process(client, YIELD, env={"LANGACP_MAX_MODEL_CALLS": "0"}, command=serve) as (
        conn,
        process,
    ):
        await base._initialize(conn)
        await base._prompt(conn, await base._new_session(conn), "echo hi")
        done = 0
        for count in counts:
            for _ in range(done, count):
                await base._prompt(conn, await base._new_session(conn), "echo hi")
                client.updates.clear()
            done = count
            await asyncio.sleep(0.2)
            rows[str(count)] = {"rss": base._rss_mb(process.pid)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--bare-sessions",
        ",".join(map(str, counts)),
        stdout=subprocess.PIPE,
        cwd=str(REPO),
        env={**os.environ, base.DELAY_ENV: repr(YIELD)},
    )
    stdout, _ = await proc.communicate()
    for count, rss in json.loads(stdout.decode().strip().splitlines()[-1]).items():
        rows[count]["bare_rss"] = rss
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--open-kb",
        str(OPEN_KB_SESSIONS),
        stdout=subprocess.PIPE,
        cwd=str(REPO),
        env={**os.environ, base.DELAY_ENV: repr(YIELD)},
    )
    stdout, _ = await proc.communicate()
    rows["open_kb"] = json.loads(stdout.decode().strip().splitlines()[-1])
    return rows


# -- the table ------------------------------------------------------------------------------------


def _mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e5 else f"{n / 1e3:.0f} KB"


def render(turn_rows: dict[str, Any], session_rows: dict[str, Any]) -> str:
    lines = [
        "| growth (one session) | factory | bare | × |",
        "|---|---|---|---|",
    ]
    for mark, r in turn_rows.items():
        lines += [
            f"| turn {mark}: CPU per turn | {r['cpu'] * 1e3:.1f} ms | {r['bare_cpu'] * 1e3:.1f} ms "
            f"| {r.get('cpu_ratio', r['cpu'] / r['bare_cpu']):.2f} |",
            f"| turn {mark}: DB bytes (DB / head) | {_mb(r['bytes'])} ({r['bytes'] / max(r['head'], 1):.1f}×) "
            f"| {_mb(r['bare_bytes'])} ({r['bare_bytes'] / max(r['bare_head'], 1):.1f}×) "
            f"| {r['bytes'] / r['bare_bytes']:.2f} |",
            f"| turn {mark}: WAL bytes | {_mb(r['wal'])} | {_mb(r['bare_wal'])} | |",
            f"| turn {mark}: session/load CPU, median of {r.get('loads', 1):.0f} (bare: aget_tuple) "
            f"| {r['load_cpu'] * 1e3:.1f} ms "
            f"| {r['bare_load_cpu'] * 1e3:.1f} ms "
            f"| {r.get('load_ratio', r['load_cpu'] / max(r['bare_load_cpu'], 1e-6)):.2f} |",
        ]
    open_kb = session_rows.get("open_kb")
    if open_kb:
        lines.append(
            f"| KB of live objects per open idle session (tracemalloc) | {open_kb['open_kb']:.1f} KB "
            f"| {open_kb['bare_open_kb']:.1f} KB | {open_kb['open_kb'] / open_kb['bare_open_kb']:.2f} |"
        )
    for count, r in session_rows.items():
        if count == "open_kb":
            continue
        lines.append(
            f"| {count} open sessions: RSS | {r['rss']:.1f} MB | {r['bare_rss']:.1f} MB "
            f"| {r['rss'] / r['bare_rss']:.2f} |"
        )
    return "\n".join(lines)


def record(table: str, args: argparse.Namespace) -> None:
    """Put ``table`` between the growth markers of ``docs/benchmarks.md``."""
    import datetime

    import forms

    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    block = "\n".join(
        [
            DOC_START,
            f"Last recorded run: {today}, {forms.machine()}, {args.turns} turns "
            "(`python tests/bench/growth.py --record`).",
            "",
            table,
            DOC_END,
        ]
    )
    text = DOCS.read_text(encoding="utf-8")
    if DOC_START in text and DOC_END in text:
        head, rest = text.split(DOC_START, 1)
        text = head + block + rest.split(DOC_END, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    DOCS.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 turns (marks 1, 50, 100), 20 and 50 sessions")
    parser.add_argument("--record", action="store_true", help="write the table into docs/benchmarks.md")
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--marks", default="1,100,300,600")
    parser.add_argument("--sessions", default="50,100,200")
    parser.add_argument("--no-sessions", action="store_true")
    parser.add_argument("--no-turns", action="store_true")
    parser.add_argument("--loads", type=int, default=LOADS, help="load/read pairs per mark (the row: their medians)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--bare-turns", help=argparse.SUPPRESS)
    parser.add_argument("--bare-sessions", help=argparse.SUPPRESS)
    parser.add_argument("--open-kb", type=int, metavar="N", help="only: KB per open idle session (tracemalloc)")
    parser.add_argument("--top", type=int, default=0, help="with --open-kb: the largest allocation sites")
    args = parser.parse_args(argv)
    if args.bare_turns:
        bare_turns_probe(args.bare_turns)
        return 0
    if args.open_kb:
        open_kb_probe(args.open_kb, args.top)
        return 0
    if args.bare_sessions:
        bare_sessions_probe(args.bare_sessions)
        return 0
    if args.quick:
        args.turns, args.marks, args.sessions = 100, "1,50,100", "20,50"
    marks = sorted({m for m in map(int, args.marks.split(",")) if m <= args.turns} | {args.turns})
    turn_rows = {} if args.no_turns else asyncio.run(growth(args.turns, marks, loads=args.loads))
    session_rows = {} if args.no_sessions else asyncio.run(sessions([int(s) for s in args.sessions.split(",")]))
    table = render(turn_rows, session_rows)
    print(table)
    if args.record:
        record(table, args)
    if args.json:
        args.json.write_text(json.dumps({"turns": turn_rows, "sessions": session_rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
