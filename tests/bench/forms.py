"""The performance table: langacp's two forms and its peers against the bare graph, in one run.

Run from the repository root (``nox -s bench`` runs it)::

    python tests/bench/forms.py [--quick] [--rounds N] [--json PATH] [--no-peers]
                                [--base DIR] [--env lean|dev] [--record] [--compare [REF]] [--only-load]
                                [--rows KEY,...]

Every row is measured for these **forms**, interleaved round by round (bare, graph, factory,
peers, in a rotating order) so that what else the shared machine does hits them alike; each
ratio is taken within a round and the table shows the median over the rounds:

- **bare**: the graph run in a Python process without ACP (``astream(stream_mode="messages")``),
  the ceiling. The graph is ``create_agent`` with the scripted model
  (``langacp.testing.agent``: same tools, system prompt, ``InMemorySaver``), the model yielding
  to the event loop between tokens as a network-bound model does. Tuned as ``langacp serve``
  tunes itself once started (``bench.tune_like_serve``: the collector frozen after start-up,
  LangSmith's inline override), so a ratio shows langacp's own work, not a tuning difference.
- **graph**: ``langacp serve langacp.testing.agent:graph --store memory``, every installed
  plugin loaded (nothing can be inserted into a precompiled graph).
- **factory**: ``langacp serve langacp.testing.agent:agent --store memory``, the per-session
  factory with every installed plugin: what users are told to run. The per-prompt model-call
  cap (``LANGACP_MAX_MODEL_CALLS``) is lifted for the 200-call row.
- **peers** (when installed in ``.bench/peers``, a separate git-ignored virtual environment:
  ``python -m venv .bench/peers && .bench/peers/bin/pip install langchain-acp deepagents-acp
  pluggy``): the same graph served by ``langchain_acp.run_acp(graph=…)`` and by
  ``deepagents_acp.server.AgentServerACP(agent=…)`` (``tests/bench/peer_agent.py``).

- **graph@base**, **factory@base** (``--base DIR``): the two forms served from another source
  tree (e.g. ``git archive main | tar -x -C DIR``), for before/after in one run.

**Environments.** langacp is installed as a user installs it: by default (``--env lean``) each
source tree gets a *lean environment* in ``.bench/lean-<key>`` (:func:`lean_python`), built on
first use with ``pip install ./core ./plugins/*``: wheels, byte-compiled by pip, with their
runtime dependencies only, pinned to the versions this interpreter has (:func:`pins`), and no
test or lint tools. It is keyed on the tree's content, so a second run, or ``--base`` with an
unchanged tree, reuses it. The bare graph runs in this tree's lean environment too (every bare
row in a fresh process of it), so the ratio to bare is langacp's own cost, and the peers run in
theirs: each is what its users install. ``--env dev`` serves langacp from this interpreter
instead (``--base`` through ``PYTHONPATH``), its source trees byte-compiled first
(:func:`byte_compile`); there the RSS row includes whatever else the development environment
installed (test servers, lint tools), which the peers' environment lacks.

Served forms are driven over real pipes by the SDK's client side (``langacp.client``).
Rows (``×`` = served / bare unless said otherwise):

- **stream**: seconds until the whole ``long N`` answer (checked word for word) and the
  response are in; throughput ratio = bare time / served time (higher is better). A second
  line: the agent process's CPU time for it, as for **tools** (below).
- **tools**: ``tools N``: N sequential ``add`` calls in one turn (N + 1 model calls), until the
  response; the answer must be ``done: N``. Throughput ratio. A second line shows the CPU time
  (every thread) the agent process used for that turn (bare: the probe process's, around its
  run); time ratio. The machine's load moves it much less than the wall time.
- **tools, paired** (``graph`` and ``factory`` both measured): what the factory form adds per
  tool call over the graph form, in agent CPU. Each round spawns both forms side by side and
  runs ``--pairs`` pairs of ``tools K`` turns (``--pair-calls`` K, each in a new session), the
  two forms of a pair one right after the other, which goes first alternating (ABBA), so the
  machine's load hits both alike; per pair: (factory CPU - graph CPU) / K. With ``--base`` the
  two trees' pairs take turns (all four processes up), and a second line gives this tree's
  difference minus the base's, pair by pair: a change's effect per call. The row shows the
  median of those differences over every pair of every round, their inter-quartile range and a
  95 % bootstrap interval of the median (:func:`paired_summary`): the goal (within 0.5 ms) is met
  when the interval's upper end is below it.
- **concurrent**: S sessions each streaming ``long M`` at once; bare runs S threads at once.
  Throughput ratio.
- **cold**: spawn → ``initialize`` → ``session/new`` answered; bare: spawn → the graph module
  imported (``python -c "import langacp.testing.agent"``). Time ratio (lower is better).
- **cold CPU**: the CPU time (user + system, all threads, from ``/proc``) the same process has
  used at that moment: the start-up's work, which the shared machine's load hardly changes
  (its wall time moves by up to 2× between rounds). Time ratio.
- **session/new**: median of K ``session/new`` in a warm process; bare: one ``create_agent``
  compile of the graph (what building a graph per session costs). Time ratio.
- **rss**: RSS of the process after K sessions, each with one ``echo hi`` turn; bare: a process
  that ran K threads of the graph with ``echo hi`` (one model). The factory form's row serves
  ``langacp.testing.agent:shared_model_agent`` (its tools and turns, one model made at import, as
  users are told to) in a process of its own. Memory ratio.
- **closed KB** (langacp forms): what a closed session leaves behind, measured in a separate
  process running the agent class with a no-op client under ``tracemalloc`` (after ``gc``):
  (traced memory after 2K open/prompt/close cycles - after K) / K. Absolute; goal ≤ 20 KB.
- **load** (factory form, and ``factory@base`` with ``--base``; ``langacp-sqlite`` installed):
  ``session/load`` of a stored 1,000-message session, until the response (every replayed update
  received), against ``checkpointer.aget_tuple`` of the same checkpoint in this process. Time
  ratio, end to end. A second line shows the agent's share: the CPU time of the agent process
  (its process CPU clock, every thread) during the load against ``aget_tuple``'s CPU time, and
  the bench client's own CPU time (the SDK's client side parsing the replay). The forms' loads
  alternate (``--only-load``: only this row).

``--rows tools,concurrent`` measures only those rows (keys: stream, tools, concurrent, cold,
new, rss, closed_kb, load), for a quicker before/after of one change; it cannot be recorded.
``--pairs 0`` leaves the paired tools row out.

``--record`` writes the ratios to ``tests/bench/baseline.json`` and the table into
``docs/benchmarks.md`` (with the date and the machine). ``--compare`` fails (exit 2) when a
langacp row's ratio is more than 10 % worse than the recorded one. Nothing is asserted on time
elsewhere: a wrong answer exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import gc
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench as base  # the helpers of the older benchmark, next to this file

REPO = base.REPO
BASELINE = REPO / "tests" / "bench" / "baseline.json"
DOCS = REPO / "docs" / "benchmarks.md"
BENCH_DIR = REPO / ".bench"
PEERS_PYTHON = BENCH_DIR / "peers" / "bin" / "python"
LEAN_PREFIX = "lean-"
KEEP_LEAN = 4
"""Lean environments kept in ``.bench`` (the most recently used; each ~170 MB)."""
PEER_SCRIPT = REPO / "tests" / "bench" / "peer_agent.py"
DOC_START = "<!-- forms:start -->"
DOC_END = "<!-- forms:end -->"
TOLERANCE = 0.10
YIELD = base.YIELD_DELAY
PAIRS = 12
"""Pairs of ``tools K`` turns (graph, factory) per round for the paired tools row (``--pairs``)."""
PAIR_CALLS = 50
"""Tool calls per turn of the paired tools row (``--pair-calls``)."""
PAIR_FORMS = (("graph", "factory"), ("graph@base", "factory@base"))
"""The (graph, factory) forms compared pair by pair, when both are measured."""
BOOTSTRAP = 2000


@dataclass(frozen=True)
class Sizes:
    stream: int
    tools: int
    sessions: int
    session_tokens: int
    session_news: int
    rss_sessions: int
    rounds: int


FULL = Sizes(stream=20_000, tools=200, sessions=20, session_tokens=2_000, session_news=100, rss_sessions=100, rounds=3)
QUICK = Sizes(stream=5_000, tools=50, sessions=5, session_tokens=1_000, session_news=20, rss_sessions=20, rounds=1)


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    higher_is_better: bool
    """For the ratio: throughput rows (bare time / served time) vs time and memory rows (served / bare)."""
    goal: str


ONLY: set[str] | None = None
"""The rows to measure (``--rows``); ``None``: every row."""
ROW_KEYS = ("stream", "tools", "concurrent", "cold", "new", "rss", "closed_kb", "load")


def wanted(key: str) -> bool:
    return ONLY is None or key in ONLY


def rows(sizes: Sizes) -> list[Row]:
    return [
        Row("stream", f"stream {sizes.stream:,} tokens", True, "≥ 0.95× bare"),
        Row("stream_cpu", "… its CPU time (the agent process)", False, "–"),
        Row("tools", f"{sizes.tools} sequential tool calls", True, "≥ 0.9× bare, ahead of every peer"),
        Row("tools_cpu", "… its CPU time (the agent process)", False, "–"),
        Row(
            "concurrent", f"{sizes.sessions} concurrent sessions × {sizes.session_tokens:,} tokens", True, "≥ 0.9× bare"
        ),
        Row("cold", "spawn → session/new answered", False, "≤ best peer"),
        Row("cold_cpu", "… its CPU time (the agent process)", False, "≤ best peer"),
        Row("new", f"session/new (median of {sizes.session_news})", False, "≤ best peer"),
        Row("rss", f"RSS after {sizes.rss_sessions} sessions", False, "≤ 0.9× best peer"),
    ]


@dataclass
class Form:
    name: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    langacp: bool = True
    rss_command: list[str] | None = None
    """The command the RSS row serves instead (in a process of its own), if another."""


@dataclass(frozen=True)
class Serving:
    """Where a tree's langacp forms run: an interpreter and what its environment adds (``PYTHONPATH``)."""

    python: str
    env: dict[str, str] = field(default_factory=dict)


def langacp_form(name: str, attr: str, serving: Serving, rss_attr: str | None = None) -> Form:
    def command(attr: str) -> list[str]:
        return [serving.python, "-m", "langacp.cli", "serve", f"langacp.testing.agent:{attr}", "--store", "memory"]

    return Form(name, command(attr), dict(serving.env), rss_command=command(rss_attr) if rss_attr else None)


def langacp_forms(serving: Serving, suffix: str = "") -> list[Form]:
    # The factory's RSS row serves ``shared_model_agent`` (one model, as bare makes one and users are told to).
    factory = langacp_form(f"factory{suffix}", "agent", serving, rss_attr="shared_model_agent")
    return [langacp_form(f"graph{suffix}", "graph", serving), factory]


# -- where langacp is served from -----------------------------------------------------------------


def pins() -> str:
    """This interpreter's third-party distributions as ``name==version`` lines, langacp's own left out.

    The constraints of a lean environment: its LangChain, LangGraph, pydantic and SDK are the
    versions this process (the client, and the peers' resolver on the same day) uses.
    """
    from importlib.metadata import distributions

    found = set()
    for dist in distributions():
        name = dist.metadata["Name"]
        if name and not name.lower().startswith("langacp"):
            found.add(f"{name}=={dist.version}")
    return "".join(f"{line}\n" for line in sorted(found, key=str.lower))


def _packages(tree: Path) -> list[Path]:
    """The tree's distributions a user installs: the core and every plugin (not the examples)."""
    plugins = sorted(p for p in (tree / "plugins").iterdir() if (p / "pyproject.toml").exists())
    return [tree / "core", *plugins]


def tree_digest(tree: Path) -> str:
    """What the tree's wheels are built from: every file of the core and the plugins but tests and caches."""
    digest = hashlib.sha256()
    for package in _packages(tree):
        for path in sorted(package.rglob("*")):
            parts = path.relative_to(package).parts
            if (
                not path.is_file()
                or parts[0] in ("tests", "build", "dist")
                or "__pycache__" in parts
                or path.suffix == ".pyc"
                or any(part.endswith(".egg-info") for part in parts)
            ):
                continue
            digest.update(str(path.relative_to(tree)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def lean_python(tree: Path, constraints: str) -> Path:
    """The interpreter of a lean environment for ``tree``, built into ``.bench`` unless already there.

    ``pip install ./core ./plugins/*``, as a user installs langacp with every plugin: wheels (not
    editable), byte-compiled by pip, their runtime dependencies pinned to ``constraints`` (no test
    or lint tools, no example plugins). Keyed on the tree's content, the constraints and the
    Python version, so ``--base`` gets its own and a second run reuses both (~35 s each to build).
    """
    tree = tree.resolve()
    key = hashlib.sha256(f"{tree_digest(tree)}\n{constraints}\n{sys.version}".encode()).hexdigest()[:16]
    home = BENCH_DIR / f"{LEAN_PREFIX}{key}"
    done = home / "complete"
    if not done.exists():
        print(f"building the lean environment {home.name} from {tree}", file=sys.stderr, flush=True)
        shutil.rmtree(home, ignore_errors=True)
        BENCH_DIR.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
        pinned = home / "constraints.txt"
        pinned.write_text(constraints, encoding="utf-8")
        pip = [str(home / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(pinned)]
        subprocess.run([*pip, "pip"], check=True, cwd=tree)
        subprocess.run([*pip, *(str(p) for p in _packages(tree))], check=True, cwd=tree)
        done.write_text(str(tree) + "\n", encoding="utf-8")
    done.touch()
    return home / "bin" / "python"


def prune_lean(keep: int = KEEP_LEAN) -> None:
    """Remove all but the ``keep`` most recently used lean environments."""
    homes = sorted(
        (h for h in BENCH_DIR.glob(f"{LEAN_PREFIX}*") if (h / "complete").exists()),
        key=lambda h: (h / "complete").stat().st_mtime,
        reverse=True,
    )
    for home in homes[keep:]:
        shutil.rmtree(home, ignore_errors=True)


def servings(mode: str, base_tree: Path | None) -> tuple[Serving, Serving | None]:
    """This tree's and the ``--base`` tree's serving: lean environments, or this interpreter (``dev``)."""
    if mode == "lean":
        constraints = pins()
        main = Serving(str(lean_python(REPO, constraints)))
        other = Serving(str(lean_python(base_tree, constraints))) if base_tree is not None else None
        prune_lean()
        return main, other
    if base_tree is None:
        return Serving(sys.executable), None
    tree = base_tree.resolve()
    paths = [tree / "core" / "src", *sorted((tree / "plugins").glob("*/src"))]
    return Serving(sys.executable), Serving(sys.executable, {"PYTHONPATH": os.pathsep.join(str(p) for p in paths)})


def peer_forms() -> list[Form]:
    if not PEERS_PYTHON.exists():
        return []
    env = {"PYTHONPATH": str(REPO / "core" / "src")}
    found = []
    for peer, module in (("langchain-acp", "langchain_acp"), ("deepagents-acp", "deepagents_acp")):
        probe = subprocess.run([str(PEERS_PYTHON), "-c", f"import {module}"], capture_output=True, check=False)
        if probe.returncode == 0:
            found.append(Form(peer, [str(PEERS_PYTHON), str(PEER_SCRIPT), peer], env, langacp=False))
    return found


# -- served measurements --------------------------------------------------------------------------


@asynccontextmanager
async def spawned(form: Form, client: Any) -> AsyncIterator[tuple[Any, Any]]:
    env = {**os.environ, base.DELAY_ENV: repr(YIELD), "LANGACP_MAX_MODEL_CALLS": "0", **form.env}
    async with base.agent_process(client, YIELD, store=[], args=(), env=env) as pair:
        yield pair


def _command_patch(form: Form) -> Any:
    """``base.agent_process`` spawns ``AGENT_CMD``: point it at this form's command for the duration."""
    return _Patched(form.command)


class _Patched(contextlib.AbstractContextManager["_Patched"]):
    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.saved = base.AGENT_CMD

    def __enter__(self) -> _Patched:
        base.AGENT_CMD = self.command
        return self

    def __exit__(self, *exc: object) -> None:
        base.AGENT_CMD = self.saved


async def _turn(conn: Any, session: str, text: str) -> str:
    return await base._prompt(conn, session, text)


async def _rss_after_turns(form: Form, conn: Any, process: Any, sessions: list[str]) -> float:
    """One ``echo hi`` turn in each session, then the process's RSS (MB)."""
    for session in sessions:
        if await _turn(conn, session, "echo hi") != "end_turn":
            raise base.BenchmarkError(f"{form.name}: echo hi did not end the turn")
    return base._rss_mb(process.pid)


async def _rss_of(form: Form, sizes: Sizes) -> float:
    """The RSS row in a process of its own serving ``form``, with as many sessions and turns as the
    row's process had before it: the first session and K more with one ``echo hi`` each."""
    client = base._make_client()
    with _command_patch(form):
        async with spawned(form, client) as (conn, process):
            await base._initialize(conn)
            opened = [await base._new_session(conn) for _ in range(max(sizes.session_news, sizes.rss_sessions) + 1)]
            return await _rss_after_turns(form, conn, process, opened[: sizes.rss_sessions + 1])


PEER_ROW_TIMEOUT = 60.0
"""Seconds a peer gets for one row before the row is reported as timed out (its process is then stopped)."""


class RowTimeout(Exception):
    """A peer took longer than ``PEER_ROW_TIMEOUT`` on a row; ``partial`` holds the rows it finished before."""

    def __init__(self, row: str, partial: dict[str, float]) -> None:
        super().__init__(row)
        self.partial = partial


async def measure_served(form: Form, sizes: Sizes, skip: set[str]) -> dict[str, float]:
    """Every row for one served form, in one process (spawned fresh). Rows in ``skip`` timed out before."""
    client = base._make_client()
    client.answer = "allow_always"  # as a user does for a harmless tool: asked once per session
    out: dict[str, float] = {}
    timeout = None if form.langacp else PEER_ROW_TIMEOUT

    async def step(key: str, work: Any) -> None:
        if key in skip or not (wanted(key) or (key == "new" and wanted("rss"))):
            work.close()
            return
        try:
            await asyncio.wait_for(work, timeout)
        except TimeoutError as exc:
            raise RowTimeout(key, out) from exc
        client.updates.clear()

    with _command_patch(form):
        start = time.perf_counter()
        async with spawned(form, client) as (conn, process):
            try:
                await base._initialize(conn)
                await base._new_session(conn)
                out["cold"] = time.perf_counter() - start
                out["cold_cpu"] = cpu_seconds(process.pid)
                await _turn(conn, await base._new_session(conn), "echo hi")

                async def sessions() -> None:
                    # session/new latency; the same sessions get one turn each: RSS after K sessions
                    times, opened = [], []
                    for _ in range(max(sizes.session_news, sizes.rss_sessions)):
                        t0 = time.perf_counter()
                        opened.append(await base._new_session(conn))
                        times.append(time.perf_counter() - t0)
                    out["new"] = statistics.median(times[: sizes.session_news])
                    if form.rss_command is None:
                        out["rss"] = await _rss_after_turns(form, conn, process, opened[: sizes.rss_sessions])
                    elif wanted("rss"):
                        out["rss"] = await _rss_of(replace(form, command=form.rss_command), sizes)

                async def tools() -> None:
                    session = await base._new_session(conn)
                    t0, cpu0 = time.perf_counter(), cpu_seconds(process.pid)
                    stop = await _turn(conn, session, f"tools {sizes.tools}")
                    out["tools"] = time.perf_counter() - t0
                    out["tools_cpu"] = cpu_seconds(process.pid) - cpu0
                    text = client.full_text(session)
                    if stop != "end_turn" or not text.endswith(f"done: {sizes.tools}"):
                        raise base.BenchmarkError(f"{form.name}: tools: stop {stop!r}, text {text[-80:]!r}")

                async def concurrent() -> None:
                    many = [await base._new_session(conn) for _ in range(sizes.sessions)]
                    t0 = time.perf_counter()
                    await asyncio.gather(*(base.served_stream(conn, client, s, sizes.session_tokens) for s in many))
                    out["concurrent"] = max(client.last_update[s] for s in many) - t0

                async def stream() -> None:
                    session = await base._new_session(conn)
                    cpu0 = cpu_seconds(process.pid)
                    out["stream"] = (await base.served_stream(conn, client, session, sizes.stream))[0]
                    out["stream_cpu"] = cpu_seconds(process.pid) - cpu0

                await step("new", sessions())
                await step("tools", tools())
                await step("concurrent", concurrent())
                await step("stream", stream())
            except RowTimeout:
                process.kill()
                raise
    return out


async def measure_pairs(
    couples: list[tuple[Form, Form]], pairs: int, calls: int, first: int = 0
) -> dict[str, list[float]]:
    """(factory - graph) agent CPU seconds per tool call, one per pair of ``tools calls`` turns, by factory name.

    ``couples``: (graph, factory) forms, e.g. this tree's and ``--base``'s. Every form is spawned
    side by side (each process once; its CPU read from its process CPU clock, every thread, to
    the nanosecond); each pair runs one turn in each form of a couple, in a new session each,
    one right after the other; the form that goes first alternates (ABBA, starting with the
    graph when ``first`` is 0), and the couples take turns pair by pair (which goes first
    alternating too), so a drift in the machine's load cancels out over the pairs and moves
    every couple alike. A warm-up turn in each comes first.
    """
    forms = [form for couple in couples for form in couple]
    clients = {form.name: base._make_client() for form in forms}
    for client in clients.values():
        client.answer = "allow_always"
    env = {base.DELAY_ENV: repr(YIELD), "LANGACP_MAX_MODEL_CALLS": "0"}
    async with contextlib.AsyncExitStack() as stack:
        served = {}
        for form in forms:
            conn, process = await stack.enter_async_context(
                base.agent_process(clients[form.name], YIELD, store=[], env={**env, **form.env}, command=form.command)
            )
            await base._initialize(conn)
            clock = base.cpu_clock(process.pid)
            if clock is None:
                raise base.BenchmarkError(f"{form.name}: its process CPU clock cannot be read")
            served[form.name] = (conn, clock)

        async def cpu_per_call(name: str) -> float:
            conn, clock = served[name]
            session = await base._new_session(conn)
            cpu0 = time.clock_gettime(clock)
            stop = await _turn(conn, session, f"tools {calls}")
            cpu = time.clock_gettime(clock) - cpu0
            text = clients[name].full_text(session)
            if stop != "end_turn" or not text.endswith(f"done: {calls}"):
                raise base.BenchmarkError(f"{name}: tools (paired): stop {stop!r}, text {text[-80:]!r}")
            clients[name].updates.clear()
            return cpu / calls

        for name in served:
            await cpu_per_call(name)
        diffs: dict[str, list[float]] = {factory.name: [] for _, factory in couples}
        for index in range(pairs):
            turn = couples if index % 2 == 0 else couples[::-1]
            for graph, factory in turn:
                order = [graph.name, factory.name] if (index + first) % 4 in (0, 3) else [factory.name, graph.name]
                measured = {name: await cpu_per_call(name) for name in order}
                diffs[factory.name].append(measured[factory.name] - measured[graph.name])
    return diffs


def paired_summary(diffs: list[float], resamples: int = BOOTSTRAP) -> tuple[float, float, float, float, float]:
    """The median of ``diffs``, its quartiles and a 95 % bootstrap interval of the median (low, high).

    The interval resamples the pairs with replacement (a fixed seed, so one run's table is
    reproducible from its numbers) and takes the 2.5th and 97.5th percentiles of the medians.
    """
    import random

    rng = random.Random(33)
    medians = sorted(statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(resamples))
    q1, _, q3 = statistics.quantiles(diffs, n=4) if len(diffs) > 1 else (diffs[0],) * 3
    low, high = medians[int(0.025 * resamples)], medians[min(resamples - 1, int(0.975 * resamples))]
    return statistics.median(diffs), q1, q3, low, high


# -- bare measurements ----------------------------------------------------------------------------


async def measure_bare(sizes: Sizes, python: str) -> dict[str, float]:
    """The bare graph's rows, each in a fresh process of ``python`` (the environment langacp is served from)."""
    out: dict[str, float] = {}
    if wanted("cold"):
        out["cold"], out["cold_cpu"] = await spawn_and_import(python, "langacp.testing.agent")
    rows_arg = ["--rows", ",".join(sorted(ONLY))] if ONLY is not None else []
    out.update(json.loads(await _child(python, "--bare-probe", json.dumps(sizes.__dict__), *rows_arg)))
    if wanted("rss"):
        out["rss"] = float(await _child(python, "--bare-rss", str(sizes.rss_sessions)))
    return out


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def spawn_and_import(python: str, module: str) -> tuple[float, float]:
    """Seconds from spawning ``python -c "import <module>"`` until imported, and the CPU time the child used.

    The child prints a line once imported and waits for its stdin to close, so neither number
    includes the interpreter's teardown (an agent's response does not wait for it either).
    """
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        python,
        "-c",
        f"import sys, {module}; print('imported', flush=True); sys.stdin.read()",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=str(REPO),
    )
    assert process.stdout is not None
    line = await process.stdout.readline()
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds(process.pid) if line.strip() == b"imported" else 0.0
    await process.communicate(b"")  # closes its stdin: it exits
    if line.strip() != b"imported" or process.returncode != 0:
        raise base.BenchmarkError(f"{python} -c 'import {module}' failed")
    return elapsed, cpu


async def _child(python: str, *args: str, env: dict[str, str] | None = None) -> str:
    """Run this script with ``python`` and ``args`` (a probe); its last line of output."""
    process = await asyncio.create_subprocess_exec(
        python,
        __file__,
        *args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(REPO),
        env={**os.environ, base.DELAY_ENV: repr(YIELD), **(env or {})},
    )
    stdout, stderr = await process.communicate()
    if process.returncode != 0:
        tail = stderr.decode(errors="replace")[-2000:]
        raise base.BenchmarkError(f"the probe {args[0]} failed ({python}):\n{tail}")
    return stdout.decode().strip().splitlines()[-1]


def bare_probe(spec: str) -> None:
    """In a child process: the stream, tools, concurrent and session/new rows of the bare graph, as JSON."""
    sizes = Sizes(**json.loads(spec))

    async def go() -> None:
        inproc = base.InProcess(YIELD)
        await inproc.stream(10)
        base.tune_like_serve()
        out: dict[str, float] = {}
        if wanted("stream"):
            cpu0 = time.process_time()
            out["stream"] = await inproc.stream(sizes.stream)
            out["stream_cpu"] = time.process_time() - cpu0
        if wanted("tools"):
            cpu0 = time.process_time()
            out["tools"] = await inproc.tools(sizes.tools)
            out["tools_cpu"] = time.process_time() - cpu0
        if wanted("concurrent"):
            t0 = time.perf_counter()
            await asyncio.gather(*(inproc.stream(sizes.session_tokens) for _ in range(sizes.sessions)))
            out["concurrent"] = time.perf_counter() - t0
        if wanted("new"):
            out["new"] = _compile_time(sizes.session_news)
        print(json.dumps(out))

    asyncio.run(go())


def _compile_time(n: int) -> float:
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from langacp.testing.agent import TOOLS, make_model

    times = []
    for _ in range(max(5, n // 10)):
        t0 = time.perf_counter()
        create_agent(make_model(), tools=TOOLS, system_prompt=base.SYSTEM_PROMPT, checkpointer=InMemorySaver())
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bare_rss_probe(n: int) -> None:
    """In a child process: K threads of the bare graph with ``echo hi``, then print VmRSS in MB."""

    async def go() -> None:
        inproc = base.InProcess(YIELD)
        await inproc._run("echo hi", lambda _m: None)
        base.tune_like_serve()
        for _ in range(n - 1):
            await inproc._run("echo hi", lambda _m: None)
        print(base._rss_mb(os.getpid()))

    asyncio.run(go())


# -- what a closed session keeps ------------------------------------------------------------------


def closed_probe(attr: str, n: int) -> None:
    """In a child process: the agent class, a no-op client, ``tracemalloc``; print KB kept per closed session."""
    import tracemalloc

    from acp import text_block

    from langacp.agent import LangacpAgent
    from langacp.plugins import load_plugins

    class Quiet:
        async def session_update(self, **_: Any) -> None:
            return None

        async def request_permission(self, **_: Any) -> Any:
            from acp.schema import AllowedOutcome, RequestPermissionResponse

            return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))

    async def cycles(agent: Any, count: int) -> None:
        for _ in range(count):
            sid = (await agent.new_session(cwd=str(REPO))).session_id
            await agent.prompt(session_id=sid, prompt=[text_block("echo hi")])
            await agent.close_session(session_id=sid)

    async def go() -> None:
        agent = LangacpAgent(f"langacp.testing.agent:{attr}", load_plugins(), store_url="memory")
        agent.on_connect(Quiet())  # type: ignore[arg-type]
        await agent.initialize(protocol_version=1)
        await cycles(agent, n)  # warm: caches, interned strings, lazily built tables
        tracemalloc.start()
        await cycles(agent, n)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        await cycles(agent, n)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        print((after - before) / n / 1024)

    asyncio.run(go())


async def closed_kb(attr: str, n: int, serving: Serving) -> float:
    return float(
        await _child(
            serving.python, "--closed-probe", attr, str(n), env={"LANGACP_MAX_MODEL_CALLS": "0", **serving.env}
        )
    )


# -- the run --------------------------------------------------------------------------------------


@dataclass
class Results:
    sizes: Sizes
    forms: list[str]
    rounds: list[dict[str, dict[str, float]]] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    timeouts: dict[str, set[str]] = field(default_factory=dict)
    """Rows a peer did not finish within ``PEER_ROW_TIMEOUT`` (not measured again)."""
    closed_kb: dict[str, float] = field(default_factory=dict)
    load: dict[str, base.LoadTimes] = field(default_factory=dict)
    """The load row's runs per form; ``load_checkpoint(_cpu)``: ``aget_tuple``'s median wall (CPU) seconds."""
    load_checkpoint: float = 0.0
    load_checkpoint_cpu: float = 0.0
    mode: str = "lean"
    """Where langacp and the bare graph ran: ``lean`` environments or this interpreter (``dev``)."""
    pairs: dict[str, list[float]] = field(default_factory=dict)
    """The paired tools row: per factory form, (factory - graph) agent CPU seconds per tool call, one per pair."""

    def values(self, form: str, key: str) -> list[float]:
        return [r[form][key] for r in self.rounds if form in r and key in r[form]]

    def ratio(self, row: Row, form: str, against: str = "bare") -> float | None:
        """Median over rounds of the per-round ratio of ``form`` to ``against`` (oriented as ``row`` says)."""
        ratios = []
        for r in self.rounds:
            if form in r and against in r and row.key in r[form] and row.key in r[against]:
                a, b = r[form][row.key], r[against][row.key]
                ratios.append(b / a if row.higher_is_better else a / b)
        return statistics.median(ratios) if ratios else None


async def run(
    sizes: Sizes, with_peers: bool, base_tree: Path | None = None, mode: str = "lean", only_load: bool = False
) -> Results:
    main, other = servings(mode, base_tree)
    forms = langacp_forms(main)
    if other is not None:
        forms += langacp_forms(other, "@base")
    if with_peers:
        forms += peer_forms()
    results = Results(sizes, ["bare", *(f.name for f in forms)], mode=mode)
    order: list[Form | None] = [None, *forms]
    for index in range(0 if only_load else sizes.rounds):
        round_values: dict[str, dict[str, float]] = {}
        shift = index % len(order)
        for form in order[shift:] + order[:shift]:
            name = "bare" if form is None else form.name
            if name in results.failures:
                continue
            print(f"round {index + 1}/{sizes.rounds}: {name}", file=sys.stderr, flush=True)
            try:
                if form is None:
                    round_values[name] = await measure_bare(sizes, main.python)
                else:
                    round_values[name] = await measure_served(form, sizes, results.timeouts.get(name, set()))
            except base.BenchmarkError as exc:
                if isinstance(exc.__cause__, RowTimeout):  # agent_process wraps what happens inside it
                    results.timeouts.setdefault(name, set()).add(str(exc.__cause__))
                    round_values[name] = exc.__cause__.partial  # the rows it finished still count
                    continue
                if form is None or form.langacp:
                    raise
                results.failures[name] = str(exc).splitlines()[0][:200]
            gc.collect()
        results.rounds.append(round_values)
        if wanted("tools") and PAIRS > 0:
            by_name = {f.name: f for f in forms}
            couples = [
                (by_name[graph_name], by_name[factory_name])
                for graph_name, factory_name in PAIR_FORMS
                if graph_name in by_name and factory_name in by_name
            ]
            if couples:
                names = ", ".join(f"{factory.name} - {graph.name}" for graph, factory in couples)
                print(f"round {index + 1}/{sizes.rounds}: {names}", file=sys.stderr, flush=True)
                measured = await measure_pairs(couples, PAIRS, PAIR_CALLS, first=index % 2)
                for factory_name, diffs in measured.items():
                    results.pairs.setdefault(factory_name, []).extend(diffs)
    for name, attr in () if only_load or not wanted("closed_kb") else (("graph", "graph"), ("factory", "agent")):
        print(f"closed-session probe: {name}", file=sys.stderr, flush=True)
        results.closed_kb[name] = await closed_kb(attr, sizes.rss_sessions, main)
    if wanted("load"):
        await measure_load(results, [f for f in forms if f.name in ("factory", "factory@base")])
    return results


async def measure_load(results: Results, forms: list[Form]) -> None:
    """The load row (``langacp-sqlite`` installed): the factory form, and ``factory@base`` with ``--base``."""
    from importlib.metadata import entry_points

    if not any(ep.name == "sqlite" for ep in entry_points(group="langacp.stores")):
        return
    print("session/load", file=sys.stderr, flush=True)
    store = ["--store", "memory"]
    commands: dict[str, tuple[list[str] | None, dict[str, str]]] = {
        f.name: (f.command[:-2] if f.command[-2:] == store else f.command, f.env) for f in forms
    }
    runs = max(6, results.sizes.rounds * 2)
    results.load_checkpoint, results.load_checkpoint_cpu, results.load = await base.load_forms(commands, runs)


# -- report ---------------------------------------------------------------------------------------


def _fmt(key: str, value: float) -> str:
    if key == "rss":
        return f"{value:.0f} MB"
    if key.endswith("_cpu"):
        return f"{value:.2f} s CPU"
    if key in ("new",):
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f} s"


def ratios(results: Results) -> dict[str, dict[str, float]]:
    """Every (row, form) ratio against bare, the closed-session KB and the load ratio: what is recorded."""
    recorded: dict[str, dict[str, float]] = {}
    for row in rows(results.sizes):
        for form in results.forms[1:]:
            value = results.ratio(row, form)
            if value is not None:
                recorded.setdefault(row.key, {})[form] = round(value, 3)
    for form, kb in results.closed_kb.items():
        recorded.setdefault("closed_kb", {})[form] = round(kb, 1)
    for form, times in results.load.items():
        recorded.setdefault("load", {})[form] = round(statistics.median(times.wall) / results.load_checkpoint, 2)
        if times.agent_cpu:
            share = statistics.median(times.agent_cpu) / results.load_checkpoint_cpu
            recorded.setdefault("load_agent_cpu", {})[form] = round(share, 2)
    return recorded


def render(results: Results) -> str:
    forms = results.forms
    peers = [f for f in forms if f not in ("bare", "graph", "factory") and "@" not in f]
    header = ["row", *forms, "factory vs best peer", "goal"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows(results.sizes):
        if not wanted(row.key.removesuffix("_cpu")):
            continue
        cells = [row.label]
        for form in forms:
            values = results.values(form, row.key)
            if form in results.failures:
                cells.append("failed")
                continue
            if row.key in results.timeouts.get(form, ()):
                cells.append(f"> {PEER_ROW_TIMEOUT:.0f} s (stopped)")
                continue
            if not values:
                cells.append("–")
                continue
            cell = _fmt(row.key, statistics.median(values))
            if form != "bare":
                ratio = results.ratio(row, form)
                cell += f" · **{ratio:.2f}×**" if ratio is not None else ""
            cells.append(cell)
        against = [results.ratio(Row(row.key, "", False, ""), "factory", p) for p in peers if p not in results.failures]
        peer_cmp = [p for p in against if p is not None]
        cells.append(f"{max(peer_cmp):.2f}×" if peer_cmp else "–")
        cells.append(row.goal)
        lines.append("| " + " | ".join(cells) + " |")
    if results.pairs:
        lines.append(paired_row(results, forms))
    kb = results.closed_kb
    if kb:
        kb_cells = [f"{kb[f]:.1f} KB" if f in kb else "–" for f in forms]
        lines.append("| KB kept per closed session (tracemalloc) | " + " | ".join(kb_cells) + " | – | ≤ 20 KB |")
    if results.load:
        lines += load_rows(results, forms)
    notes = [
        "",
        "Cells: median over the rounds, then **the ratio to bare** (median of per-round ratios): "
        "throughput rows bare time / served time (higher is better), the others served / bare "
        "(lower is better). *factory vs best peer*: the factory's time (or MB) / the fastest (or smallest) "
        "peer's, per round, median; below 1 the factory is ahead. The client answers permission requests "
        "with *allow always* (langacp-permissions asks once for the scripted `add` tool, then remembers). "
        + (
            "langacp's forms and the bare graph run in a lean environment per source tree (`pip install ./core "
            "./plugins/*`: wheels, byte-compiled, runtime dependencies only, pinned to the benchmark's versions), "
            "the peers in theirs (`.bench/peers`)."
            if results.mode == "lean"
            else "langacp's forms and the bare graph run in the benchmark's own environment (`--env dev`)."
        ),
    ]
    notes += [f"- {name} failed: {reason}" for name, reason in results.failures.items()]
    return "\n".join(lines + notes)


def paired_row(results: Results, forms: list[str]) -> str:
    """The paired tools row: per factory form, the median per-call difference, its IQR and 95 % interval."""
    cells = ["–"] * len(forms)
    for form, diffs in results.pairs.items():
        median, q1, q3, low, high = (v * 1000 for v in paired_summary(diffs))
        cells[forms.index(form)] = (
            f"**{median:+.2f} ms** (IQR {q1:+.2f}…{q3:+.2f}, 95 % {low:+.2f}…{high:+.2f}; {len(diffs)} pairs)"
        )
    label = f"… factory − graph, agent CPU per tool call ({PAIR_CALLS} calls a turn, paired)"
    row = f"| {label} | " + " | ".join(cells) + " | – | ≤ +0.5 ms |"
    here, there = results.pairs.get("factory"), results.pairs.get("factory@base")
    if here and there and len(here) == len(there) and "factory" in forms:
        # The couples took turns pair by pair: the i-th pairs ran side by side, under the same load.
        changed = [a - b for a, b in zip(here, there, strict=True)]
        median, q1, q3, low, high = (v * 1000 for v in paired_summary(changed))
        cells = ["–"] * len(forms)
        cells[forms.index("factory")] = (
            f"**{median:+.2f} ms** (IQR {q1:+.2f}…{q3:+.2f}, 95 % {low:+.2f}…{high:+.2f}; {len(here)} pairs of pairs)"
        )
        label = "… that difference, this tree's − the base's (pair by pair)"
        row += f"\n| {label} | " + " | ".join(cells) + " | – | – |"
    return row


def load_rows(results: Results, forms: list[str]) -> list[str]:
    """The load row (wall time, end to end) and the agent's CPU time of it, both against ``aget_tuple``."""
    wall, cpu = ["–"] * len(forms), ["–"] * len(forms)
    wall[0] = f"{results.load_checkpoint * 1000:.1f} ms `aget_tuple`"
    cpu[0] = f"{results.load_checkpoint_cpu * 1000:.1f} ms CPU `aget_tuple`"
    for form, times in results.load.items():
        if form not in forms:
            continue
        served = statistics.median(times.wall)
        wall[forms.index(form)] = f"{served * 1000:.1f} ms · **{served / results.load_checkpoint:.1f}×**"
        if times.agent_cpu:
            agent = statistics.median(times.agent_cpu)
            client = statistics.median(times.client_cpu)
            cpu[forms.index(form)] = (
                f"{agent * 1000:.1f} ms · **{agent / results.load_checkpoint_cpu:.1f}×** "
                f"(client {client * 1000:.0f} ms · {client / results.load_checkpoint_cpu:.1f}×)"
            )
    return [
        "| session/load of 1,000 messages (SQLite) | " + " | ".join(wall) + " | – | ≤ 2× |",
        "| session/load: the agent's CPU time (the bench client's) | " + " | ".join(cpu) + " | – | – |",
    ]


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor() or "unknown CPU",
    )
    return f"{os.cpu_count()} CPUs ({cpu}), Linux {platform.release()}, Python {platform.python_version()}"


def write_docs(results: Results, table: str) -> None:
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    sizes = results.sizes
    block = "\n".join(
        [
            DOC_START,
            f"Last recorded run: {today}, {machine()}, {sizes.rounds} rounds (`python tests/bench/forms.py --record`).",
            "",
            table,
            DOC_END,
        ]
    )
    text = DOCS.read_text(encoding="utf-8")
    if DOC_START in text and DOC_END in text:
        head, rest = text.split(DOC_START, 1)
        _, tail = rest.split(DOC_END, 1)
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    DOCS.write_text(text, encoding="utf-8")


def compare(current: dict[str, dict[str, float]], recorded: dict[str, dict[str, float]]) -> list[str]:
    """langacp rows more than ``TOLERANCE`` worse than recorded."""
    higher = {row.key: row.higher_is_better for row in rows(FULL)}
    worse = []
    for key, forms in recorded.items():
        for form, old in forms.items():
            if form not in ("graph", "factory") or form not in current.get(key, {}):
                continue
            new = current[key][form]
            if key == "closed_kb":
                bad = new > max(old * (1 + TOLERANCE), old + 5.0)  # KB near zero: 5 KB of slack
            elif higher.get(key, False):
                bad = new < old * (1 - TOLERANCE)
            else:
                bad = new > old / (1 - TOLERANCE)
            if bad:
                worse.append(f"{key} / {form}: {new} against {old} recorded")
    return worse


def _recorded(ref: str | None) -> dict[str, Any]:
    """The recorded baseline (``tests/bench/baseline.json``, at git ``ref`` if given): sizes and ratios."""
    if ref is None:
        return dict(json.loads(BASELINE.read_text(encoding="utf-8")))
    shown = subprocess.run(
        ["git", "show", f"{ref}:{BASELINE.relative_to(REPO)}"], cwd=REPO, capture_output=True, text=True, check=True
    )
    return dict(json.loads(shown.stdout))


def byte_compile(trees: list[Path]) -> None:
    """Byte-compile langacp's source trees, as ``pip install`` does for a wheel (and did for the peers).

    Served from a checkout under ``PYTHONDONTWRITEBYTECODE`` (set where this benchmark runs), every
    spawned langacp would otherwise compile its ~170 modules from source, which no installed copy
    does: ~8 % of spawn → ``session/new`` measured here.
    """
    import compileall

    for tree in trees:
        for src in [tree / "core" / "src", *sorted((tree / "plugins").glob("*/src"))]:
            compileall.compile_dir(str(src), quiet=1)


def _only_rows(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--rows``: set :data:`ONLY`."""
    global ONLY
    if args.rows:
        ONLY = set(args.rows.split(","))
        if ONLY - set(ROW_KEYS) or args.record:
            parser.error(f"--rows takes {', '.join(ROW_KEYS)} and cannot be recorded")


def main(argv: list[str] | None = None) -> int:
    global PAIRS, PAIR_CALLS
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one round (a smoke run)")
    parser.add_argument("--rounds", type=int, help="rounds (default 3; --quick 1)")
    parser.add_argument("--no-peers", action="store_true", help="skip the peer adapters")
    parser.add_argument(
        "--base", metavar="DIR", type=Path, help="also serve langacp from this source tree (e.g. `git archive` of main)"
    )
    parser.add_argument(
        "--env",
        choices=("lean", "dev"),
        default="lean",
        help="serve langacp and run the bare graph from lean environments built in .bench (default) or from this one",
    )
    parser.add_argument("--only-load", action="store_true", help="only the session/load row")
    parser.add_argument("--json", metavar="PATH", help="write every measured number as JSON")
    parser.add_argument("--record", action="store_true", help="store the ratios and the table (baseline, docs)")
    parser.add_argument(
        "--compare", nargs="?", const="", metavar="REF", help="fail if a ratio is >10%% worse than recorded (at REF)"
    )
    parser.add_argument("--rows", metavar="KEY,...", help=f"measure only these rows ({', '.join(ROW_KEYS)})")
    parser.add_argument(
        "--pairs",
        type=int,
        default=PAIRS,
        help=f"pairs of tools turns per round, paired row (default {PAIRS}; 0: none)",
    )
    parser.add_argument(
        "--pair-calls", type=int, default=PAIR_CALLS, help=f"tool calls per paired turn (default {PAIR_CALLS})"
    )
    parser.add_argument("--bare-rss", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bare-probe", help=argparse.SUPPRESS)
    parser.add_argument("--closed-probe", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    _only_rows(parser, args)
    PAIRS, PAIR_CALLS = max(0, args.pairs), max(1, args.pair_calls)
    if args.only_load and (args.record or args.compare is not None):
        parser.error("--only-load measures one row: it cannot --record or --compare")
    if args.bare_rss:
        bare_rss_probe(args.bare_rss)
        return 0
    if args.bare_probe:
        bare_probe(args.bare_probe)
        return 0
    if args.closed_probe:
        closed_probe(args.closed_probe[0], int(args.closed_probe[1]))
        return 0
    os.chdir(REPO)
    data_home = tempfile.TemporaryDirectory(prefix="langacp-bench-data-")
    config_home = tempfile.TemporaryDirectory(prefix="langacp-bench-config-")
    os.environ["XDG_DATA_HOME"] = data_home.name
    os.environ["XDG_CONFIG_HOME"] = config_home.name  # no user configuration
    os.environ.pop(base.NO_AUTOLOAD_ENV, None)  # every installed plugin
    os.environ["LANGACP_MAX_MODEL_CALLS"] = "0"
    # The peers import the scripted agent from this tree's source; in ``--env dev`` langacp is served from source too.
    byte_compile([REPO, *([args.base] if args.base and args.env == "dev" else [])])
    sizes = QUICK if args.quick else FULL
    if args.quick:
        global PEER_ROW_TIMEOUT
        PEER_ROW_TIMEOUT = 20.0
    if args.rounds:
        sizes = Sizes(**{**sizes.__dict__, "rounds": args.rounds})
    started = time.perf_counter()
    try:
        results = asyncio.run(run(sizes, not args.no_peers, args.base, args.env, args.only_load))
    except base.BenchmarkError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1
    table = render(results)
    print(table)
    print(f"\n{sizes.rounds} round(s), {time.perf_counter() - started:.0f} s, {machine()}")
    current = ratios(results)
    if args.json:
        payload = {
            "sizes": sizes.__dict__,
            "env": args.env,
            "rounds": results.rounds,
            "ratios": current,
            "failures": results.failures,
            "pairs": results.pairs,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
    if args.record:
        BASELINE.write_text(
            json.dumps({"machine": machine(), "sizes": sizes.__dict__, "ratios": current}, indent=2) + "\n"
        )
        write_docs(results, table)
    if args.compare is not None:
        recorded = _recorded(args.compare or None)
        if {k: v for k, v in recorded["sizes"].items() if k != "rounds"} != {
            k: v for k, v in sizes.__dict__.items() if k != "rounds"
        }:
            print("--compare: the recorded run used other sizes (run without --quick)", file=sys.stderr)
            return 2
        worse = compare(current, recorded["ratios"])
        for line in worse:
            print(f"REGRESSION: {line}", file=sys.stderr)
        if worse:
            return 2
        print("no row more than 10 % worse than recorded", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
