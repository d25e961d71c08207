"""langacp benchmark: what serving a LangGraph agent over ACP costs, against the graph run in-process.

Run from the repository root::

    python tests/bench/bench.py [--quick] [--json PATH] [--plugins]

It serves ``langacp.testing.agent:agent`` with ``langacp serve`` as a subprocess, drives it
over real stdin/stdout pipes with :class:`langacp.client.RecordingClient`, and prints one
Markdown table. Every ratio compares two numbers measured in the same run on the same
machine, so it means something even where the absolute numbers do not. Nothing is asserted
on time: the script exits 0 unless something crashes (1 if an answer arrives wrong).
Throughputs are the best of 3 runs, times the median of N. Only the core's built-in plugins
are loaded unless ``--plugins`` is given (then whatever the environment has installed).

Rows (ratio = langacp / baseline; 1.0 means langacp adds nothing):

- **(a) streaming N tokens**: tokens/s of an N-word answer (prompt ``long N``: ``w0 w1 …``),
  from sending ``session/prompt`` until the client holds both the ``PromptResponse`` and the
  whole text (tokens = words of the ``agent_message_chunk`` texts; the text must equal the
  expected one exactly). "msg" is how many ``agent_message_chunk`` notifications carried it
  (langacp merges queued chunks). Baseline: the same graph (``create_agent`` with the same
  ``ScriptedChatModel``, tools, system prompt and an ``InMemorySaver``, as the factory builds
  it, minus langacp's middleware) consumed in-process with ``astream(stream_mode="messages")``.
  Two models: **never yields** is the scripted model as is (``token_delay=0``): it never
  suspends, so LangGraph hands every token to langacp at the end of the model call and the
  answer leaves in one or two messages; this measures langacp's per-token work. **yields per
  token** sleeps ``1e-9`` s between tokens, like a model reading from the network: each token
  can leave on its own, so it also measures the per-message cost (SDK, JSON, pipe). Goal >= 0.8.
- **(a) growth**: tokens/s at the large size / tokens/s at the small size, for each path.
  About 1 means no slowdown as answers grow; below 1 means a cost growing faster than the
  answer; above 1 means a fixed per-turn cost being amortized.
- **(b) tools**: ``tools N`` makes N sequential ``add`` calls in one turn (N + 1 model calls).
  Completed tool calls/s: tool calls reported with status ``completed`` over ACP,
  against ``ToolMessage``s from the in-process ``astream(stream_mode="messages")``. Goal >= 0.9.
- **(c) cold start**: median wall time from spawning ``langacp serve`` to the ``initialize``
  response and to the first ``session/new`` response (which waits for LangChain and the target
  to import), beside the floors ``python -c "import acp"``, ``python -c "import
  langchain.agents"`` and ``python -c "import acp, langchain.agents"`` (spawn to imported, without
  interpreter teardown). The
  ratio column gives differences to floors; goal: initialize within 0.3 s of ``import acp``.
- **(d) concurrency**: S sessions of one agent process stream a ``long M`` answer at once
  (yielding model); aggregate tokens/s against one session alone in the same process.
  Goal >= 0.9 (no throughput lost to contention; above 1 when interleaved sessions let more
  chunks merge per message).
- **(e) memory**: RSS (``VmRSS``) of the agent process after ``initialize`` (before the target
  is imported), after one session with one ``echo hi`` prompt, and after K such sessions;
  per-session KB = (RSS after K - RSS after 1) / (K - 1).
- **(f) cancel**: time from sending ``session/cancel`` to the ``cancelled`` response, while a
  60 s async tool runs and while an answer streams. Goal <= 100 ms (the tool and the stream
  are stopped, not waited for).
- **(g) exit**: time from closing the agent's stdin to its exit (code 0) while a synchronous
  tool sleeps in a worker thread. Goal <= 2 s.
- **(mcp)** (only when ``langacp-mcp`` is installed; the agent runs with ``-p mcp``): median
  time of a turn that calls the ``echo`` tool of a FastMCP stdio server
  (``plugins/mcp/tests/mcp_server.py``) handed over in ``session/new``, from ``session/prompt``
  to the response, against ``ClientSession.call_tool("echo")`` on a persistent session to the
  same server in this process. Turns calling the scripted agent's local ``add`` tool,
  interleaved with them in the same session, show how much of the turn is the MCP call. And
  ``session/new`` with that server against ``session/new`` without one (spawning and
  initializing the server).
- **(h) session/load**: a stored 1,000-message session (250 turns of question, tool call, tool
  result, answer) in a SQLite file (``langacp-sqlite``): median time from sending
  ``session/load`` to its response, every update of the replay received (the session is closed
  between runs, so each load reads the database), against reading the same checkpoint directly
  with ``checkpointer.aget_tuple`` in this process. Skipped when ``langacp-sqlite`` is not installed.

Rows (a), (b), (d)-(g) serve with ``--store memory`` (their baseline uses LangGraph's
``InMemorySaver``); (c) measures the default store (``sqlite`` when installed), with
``XDG_DATA_HOME`` pointing into a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[2]
TARGET = "langacp.testing.agent:agent"
AGENT_CMD = [sys.executable, "-m", "langacp.cli", "serve", TARGET]
MEMORY_STORE = ["--store", "memory"]
SYSTEM_PROMPT = "You are a scripted test agent."  # what langacp.testing.agent:agent uses
RECURSION_LIMIT = 1000  # langacp serve's default
NO_AUTOLOAD_ENV = "LANGACP_DISABLE_PLUGIN_AUTOLOAD"
DELAY_ENV = "LANGACP_TEST_TOKEN_DELAY"  # read by langacp.testing.agent.make_model
YIELD_DELAY = 1e-9
"""Token delay of the yielding model: ``asyncio.sleep(1e-9)`` suspends the model between tokens at no real cost."""


@dataclass(frozen=True)
class Sizes:
    """Workload sizes of one run."""

    stream_small: int
    stream_large: int
    tools: int
    sessions: int
    session_tokens: int
    rss_sessions: int
    runs: int


FULL = Sizes(
    stream_small=2_000, stream_large=20_000, tools=200, sessions=20, session_tokens=2_000, rss_sessions=100, runs=5
)
QUICK = Sizes(
    stream_small=1_000, stream_large=5_000, tools=50, sessions=5, session_tokens=2_000, rss_sessions=20, runs=3
)


class BenchmarkError(RuntimeError):
    """A wrong answer or a broken agent: the benchmark cannot go on."""


def expected_text(n: int) -> str:
    """What the scripted model answers to ``long n``."""
    return "".join(f"w{i} " for i in range(n))


def _load_scripted() -> Any:
    from langacp.testing import agent

    return agent


# -- the client side ------------------------------------------------------------------------------


def _make_client() -> Any:
    """A RecordingClient that also keeps per-session text and completed-tool counters (O(1) per update)."""
    from langacp.client import RecordingClient, update_text

    class BenchClient(RecordingClient):
        def __init__(self) -> None:
            super().__init__()
            self.texts: dict[str, list[str]] = defaultdict(list)
            self.chars: dict[str, int] = defaultdict(int)
            self.completed: dict[str, int] = defaultdict(int)
            self.last_update: dict[str, float] = {}

        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            kind = getattr(update, "session_update", None)
            if kind == "agent_message_chunk":
                text = update_text(update)
                self.texts[session_id].append(text)
                self.chars[session_id] += len(text)
            elif kind in ("tool_call", "tool_call_update") and getattr(update, "status", None) == "completed":
                self.completed[session_id] += 1
            self.last_update[session_id] = time.perf_counter()
            await super().session_update(session_id, update, **kwargs)

        def full_text(self, session_id: str) -> str:
            return "".join(self.texts[session_id])

    return BenchClient()


@asynccontextmanager
async def agent_process(
    client: Any,
    token_delay: float = 0.0,
    store: list[str] = MEMORY_STORE,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    command: list[str] | None = None,
) -> AsyncIterator[tuple[Any, asyncio.subprocess.Process]]:
    """``langacp serve`` on the scripted agent, its stderr in a temporary file shown if anything fails.

    ``store``: the ``--store`` arguments (``[]``: the default store); ``args``, ``env``: more of each;
    ``command``: another command than :data:`AGENT_CMD` (without the store).
    """
    from langacp.client import spawn_agent

    env = {**os.environ, DELAY_ENV: repr(token_delay), **(env or {})}
    with tempfile.TemporaryFile() as log:
        try:
            spawned = [*(command or AGENT_CMD), *store, *args]
            async with spawn_agent(spawned, client, env=env, cwd=str(REPO), stderr=log) as pair:
                yield pair
        except Exception as exc:
            raise BenchmarkError(f"{exc!s} ({type(exc).__name__})\n--- agent stderr (tail) ---\n{_tail(log)}") from exc


def _tail(log: IO[bytes], size: int = 4000) -> str:
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - size))
    return log.read().decode(errors="replace")


async def _initialize(conn: Any) -> None:
    from acp import PROTOCOL_VERSION

    await conn.initialize(protocol_version=PROTOCOL_VERSION)


async def _new_session(conn: Any) -> str:
    response = await conn.new_session(cwd=str(REPO), mcp_servers=[])
    return str(response.session_id)


async def _prompt(conn: Any, session_id: str, text: str) -> str:
    from acp import text_block

    response = await conn.prompt(session_id=session_id, prompt=[text_block(text)])
    return str(response.stop_reason)


async def _until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise BenchmarkError(f"timed out waiting for {what}")
        await asyncio.sleep(0.001)


async def served_stream(conn: Any, client: Any, session_id: str, n: int) -> tuple[float, int]:
    """Seconds from ``session/prompt`` until the response and the whole ``long n`` answer are in, and messages used."""
    expected = expected_text(n)
    start = time.perf_counter()
    stop_reason = await _prompt(conn, session_id, f"long {n}")
    responded = time.perf_counter()
    with contextlib.suppress(BenchmarkError):  # a short text is reported just below
        await _until(lambda: client.chars[session_id] >= len(expected), "the text", timeout=5.0)
    end = max(responded, client.last_update.get(session_id, responded))
    text = client.full_text(session_id)
    if stop_reason != "end_turn" or text != expected:
        raise BenchmarkError(
            f"long {n}: stop reason {stop_reason!r}; the text received ({len(text.split())} words, {len(text)} chars) "
            f"differs from the expected one ({len(expected)} chars) at char {_first_difference(text, expected)}"
        )
    return end - start, len(client.texts[session_id])


def _first_difference(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


# -- the in-process baseline ----------------------------------------------------------------------


def tune_like_serve() -> None:
    """What ``langacp serve`` does once started that changes steady-state cost, for a bare baseline to do too.

    LangSmith's inline override (:func:`langacp.tracing.install`: a traced call's span is not set
    up in a worker thread when tracing is off) and the collector told to skip what start-up
    made (``gc.freeze()``, as :mod:`langacp.startup_gc` does).
    """
    from langacp import tracing

    tracing.install()
    gc.collect()
    gc.freeze()


class InProcess:
    """The served graph built the way the factory builds it, minus langacp's middleware."""

    def __init__(self, token_delay: float = 0.0) -> None:
        from langchain.agents import create_agent
        from langgraph.checkpoint.memory import InMemorySaver

        from langacp.testing.model import ScriptedChatModel

        scripted = _load_scripted()
        model = ScriptedChatModel(responder=scripted.respond, token_delay=token_delay)  # what make_model() builds
        self.graph: Any = create_agent(
            model, tools=scripted.TOOLS, system_prompt=SYSTEM_PROMPT, checkpointer=InMemorySaver()
        )

    async def _run(self, prompt: str, on_item: Callable[[Any], None]) -> float:
        from langchain_core.messages import HumanMessage

        config: dict[str, Any] = {"configurable": {"thread_id": uuid.uuid4().hex}, "recursion_limit": RECURSION_LIMIT}
        start = time.perf_counter()
        async for message, _ in self.graph.astream(
            {"messages": [HumanMessage(content=prompt)]}, config, stream_mode="messages"
        ):
            on_item(message)
        return time.perf_counter() - start

    async def stream(self, n: int) -> float:
        """Seconds to stream ``long n``; the text is checked."""
        from langchain_core.messages import AIMessageChunk

        parts: list[str] = []

        def on_item(message: Any) -> None:
            if isinstance(message, AIMessageChunk) and isinstance(message.content, str):
                parts.append(message.content)

        elapsed = await self._run(f"long {n}", on_item)
        if "".join(parts) != expected_text(n):
            raise BenchmarkError(f"in-process: wrong text for long {n}")
        return elapsed

    async def tools(self, n: int) -> float:
        """Seconds for ``tools n``; the completed calls are counted."""
        from langchain_core.messages import ToolMessage

        done = 0

        def on_item(message: Any) -> None:
            nonlocal done
            if isinstance(message, ToolMessage) and message.status == "success":
                done += 1

        elapsed = await self._run(f"tools {n}", on_item)
        if done != n:
            raise BenchmarkError(f"in-process: {done} tool calls completed instead of {n}")
        return elapsed


# -- measurements ---------------------------------------------------------------------------------


@dataclass
class Streaming:
    """Row (a) for one model: tokens/s served and in-process, and ``agent_message_chunk`` messages per answer."""

    small_served: float = 0.0
    small_inproc: float = 0.0
    large_served: float = 0.0
    large_inproc: float = 0.0
    small_messages: int = 0
    large_messages: int = 0


@dataclass
class Results:
    """Every number the table shows (rates per second, times in seconds, memory in MB or KB)."""

    sizes: dict[str, int]
    burst: Streaming = field(default_factory=Streaming)
    yielding: Streaming = field(default_factory=Streaming)
    tools_served: float = 0.0
    tools_inproc: float = 0.0
    initialize_s: float = 0.0
    session_new_s: float = 0.0
    import_acp_s: float = 0.0
    import_langchain_agents_s: float = 0.0
    import_both_s: float = 0.0
    plugins: bool = False
    concurrent_aggregate: float = 0.0
    concurrent_single: float = 0.0
    rss_initialize_mb: float = 0.0
    rss_one_session_mb: float = 0.0
    rss_sessions_mb: float = 0.0
    rss_per_session_kb: float = 0.0
    cancel_tool_s: float = 0.0
    cancel_stream_s: float = 0.0
    eof_exit_s: float = 0.0
    mcp_installed: bool = False
    mcp_calls: int = 0
    mcp_direct_s: float = 0.0
    mcp_turn_s: float = 0.0
    mcp_local_turn_s: float = 0.0
    mcp_session_new_s: float = 0.0
    mcp_plain_session_new_s: float = 0.0
    load_messages: int = 0
    load_s: float = 0.0
    load_checkpoint_s: float = 0.0
    total_s: float = 0.0


RUNS_PER_RATE = 3
"""Throughput numbers are the best of this many runs: the run least disturbed by the rest of the machine."""


async def _best(measure: Callable[[], Awaitable[float]]) -> float:
    return min([await measure() for _ in range(RUNS_PER_RATE)])


@asynccontextmanager
async def _warm_agent(client: Any, token_delay: float) -> AsyncIterator[Any]:
    """An initialized agent that has already served one session (target imported, graph code warm)."""
    async with agent_process(client, token_delay) as (conn, _):
        await _initialize(conn)
        await _prompt(conn, await _new_session(conn), "echo hi")
        await served_stream(conn, client, await _new_session(conn), 10)
        yield conn


async def _inproc_streaming(sizes: Sizes, token_delay: float) -> tuple[float, float]:
    inproc = InProcess(token_delay)
    await inproc.stream(10)  # warm-up
    small = sizes.stream_small / await _best(lambda: inproc.stream(sizes.stream_small))
    return small, sizes.stream_large / await _best(lambda: inproc.stream(sizes.stream_large))


async def bench_streaming(sizes: Sizes, token_delay: float) -> Streaming:
    """Row (a) for one model; every measurement in a fresh session (or a fresh thread in-process)."""
    result = Streaming()
    result.small_inproc, result.large_inproc = await _inproc_streaming(sizes, token_delay)
    gc.collect()  # the baseline's threads are gone: do not slow this process's GC while it plays the client

    client = _make_client()
    async with _warm_agent(client, token_delay) as conn:

        async def served(n: int) -> float:
            elapsed, messages = await served_stream(conn, client, await _new_session(conn), n)
            if n == sizes.stream_small:
                result.small_messages = messages
            else:
                result.large_messages = messages
            return elapsed

        result.small_served = sizes.stream_small / await _best(lambda: served(sizes.stream_small))
        result.large_served = sizes.stream_large / await _best(lambda: served(sizes.stream_large))
    return result


async def _inproc_tools(n: int) -> float:
    inproc = InProcess()
    await inproc.tools(2)  # warm-up
    return n / await _best(lambda: inproc.tools(n))


async def bench_tools(sizes: Sizes, results: Results) -> None:
    """Row (b): completed tool calls/s served and in-process (``astream(stream_mode="messages")``)."""
    n = sizes.tools
    results.tools_inproc = await _inproc_tools(n)
    gc.collect()

    client = _make_client()
    async with _warm_agent(client, 0.0) as conn:
        await _prompt(conn, await _new_session(conn), "tools 2")

        async def served() -> float:
            session = await _new_session(conn)
            start = time.perf_counter()
            stop_reason = await _prompt(conn, session, f"tools {n}")
            responded = time.perf_counter()
            await _until(lambda: client.completed[session] >= n, "the completed tool calls")
            if stop_reason != "end_turn" or client.completed[session] != n:
                raise BenchmarkError(f"tools: stop {stop_reason!r}, {client.completed[session]} calls completed")
            return float(max(responded, client.last_update[session]) - start)

        results.tools_served = n / await _best(served)


async def _spawn_and_import(modules: str, python: str = sys.executable) -> float:
    """Seconds from spawning ``python -c "import <modules>"`` until the import is done.

    The child prints a line once imported, so the floor excludes interpreter teardown, which an
    agent's ``initialize`` or ``session/new`` response does not wait for either.
    """
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        python,
        "-c",
        f"import {modules}; print('imported', flush=True)",
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
        cwd=str(REPO),
    )
    assert process.stdout is not None
    line = await process.stdout.readline()
    elapsed = time.perf_counter() - start
    await process.communicate()
    if line.strip() != b"imported" or process.returncode != 0:
        raise BenchmarkError(f"python -c 'import {modules}' failed")
    return elapsed


async def bench_cold_start(sizes: Sizes, results: Results) -> None:
    """Row (c): runs interleaved (agent, then each floor) so drift hits all alike."""
    initialize: list[float] = []
    session_new: list[float] = []
    floor_acp: list[float] = []
    floor_langchain: list[float] = []
    floor_both: list[float] = []
    for _ in range(sizes.runs):
        start = time.perf_counter()
        async with agent_process(_make_client(), store=[]) as (conn, _):
            await _initialize(conn)
            initialize.append(time.perf_counter() - start)
            await _new_session(conn)
            session_new.append(time.perf_counter() - start)
        floor_acp.append(await _spawn_and_import("acp"))
        floor_langchain.append(await _spawn_and_import("langchain.agents"))
        floor_both.append(await _spawn_and_import("acp, langchain.agents"))
    results.initialize_s = statistics.median(initialize)
    results.session_new_s = statistics.median(session_new)
    results.import_acp_s = statistics.median(floor_acp)
    results.import_langchain_agents_s = statistics.median(floor_langchain)
    results.import_both_s = statistics.median(floor_both)


async def bench_concurrency(sizes: Sizes, results: Results) -> None:
    """Row (d), with the yielding model: S sessions streaming at once against one session alone."""
    client = _make_client()
    n = sizes.session_tokens
    async with _warm_agent(client, YIELD_DELAY) as conn:

        async def single() -> float:
            return (await served_stream(conn, client, await _new_session(conn), n))[0]

        results.concurrent_single = n / await _best(single)

        async def together() -> float:
            sessions = [await _new_session(conn) for _ in range(sizes.sessions)]
            start = time.perf_counter()
            await asyncio.gather(*(served_stream(conn, client, s, n) for s in sessions))
            return float(max(client.last_update[s] for s in sessions) - start)

        results.concurrent_aggregate = sizes.sessions * n / await _best(together)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise BenchmarkError(f"no VmRSS for pid {pid}")


async def bench_memory(sizes: Sizes, results: Results) -> None:
    """Row (e): RSS after initialize, after one session, after K sessions (one ``echo hi`` each)."""
    async with agent_process(_make_client()) as (conn, process):
        await _initialize(conn)
        results.rss_initialize_mb = _rss_mb(process.pid)
        await _prompt(conn, await _new_session(conn), "echo hi")
        results.rss_one_session_mb = _rss_mb(process.pid)
        for _ in range(sizes.rss_sessions - 1):
            await _prompt(conn, await _new_session(conn), "echo hi")
        results.rss_sessions_mb = _rss_mb(process.pid)
    growth = results.rss_sessions_mb - results.rss_one_session_mb
    results.rss_per_session_kb = growth * 1024 / max(1, sizes.rss_sessions - 1)


async def _cancel_latency(conn: Any, client: Any, prompt: str, started: Callable[[str], bool]) -> float:
    """Seconds from sending ``session/cancel`` to the ``cancelled`` response, once ``started(session)``."""
    session = await _new_session(conn)
    turn = asyncio.ensure_future(_prompt(conn, session, prompt))
    await _until(lambda: started(session), f"{prompt!r} to start")
    start = time.perf_counter()
    await conn.cancel(session_id=session)
    stop_reason = await turn
    elapsed = time.perf_counter() - start
    if stop_reason != "cancelled":
        raise BenchmarkError(f"{prompt!r}: cancel answered {stop_reason!r}")
    return elapsed


async def bench_cancel(sizes: Sizes, results: Results) -> None:
    """Row (f): session/cancel → response, during a 60 s async tool and during streaming (median)."""
    client = _make_client()
    async with _warm_agent(client, YIELD_DELAY) as conn:
        in_tool = [
            await _cancel_latency(
                conn,
                client,
                "slow 60",
                lambda s: any(getattr(u, "status", None) == "in_progress" for u in client.of(s)),
            )
            for _ in range(sizes.runs)
        ]
        streaming = [
            await _cancel_latency(conn, client, "long 50000", lambda s: client.chars[s] > 1000)
            for _ in range(sizes.runs)
        ]
    results.cancel_tool_s = statistics.median(in_tool)
    results.cancel_stream_s = statistics.median(streaming)


async def bench_eof_exit(sizes: Sizes, results: Results) -> None:
    """Row (g): stdin EOF → process exit, while a 60 s *sync* tool runs in a worker thread (median)."""
    times = []
    for _ in range(sizes.runs):
        client = _make_client()
        async with agent_process(client) as (conn, process):
            await _initialize(conn)
            session = await _new_session(conn)
            turn = asyncio.ensure_future(_prompt(conn, session, "sync_slow 60"))

            def started(client: Any = client, session: str = session) -> bool:
                return any(getattr(u, "status", None) == "in_progress" for u in client.of(session))

            await _until(started, "the sync tool to start")
            start = time.perf_counter()
            assert process.stdin is not None
            process.stdin.close()
            code = await asyncio.wait_for(process.wait(), 30)
            times.append(time.perf_counter() - start)
            turn.cancel()
            await asyncio.gather(turn, return_exceptions=True)
            if code != 0:
                raise BenchmarkError(f"exit code {code} after stdin EOF")
    results.eof_exit_s = statistics.median(times)


MCP_SERVER = REPO / "plugins" / "mcp" / "tests" / "mcp_server.py"


async def _mcp_direct(n: int) -> list[float]:
    """``call_tool("echo")`` on one persistent ClientSession to the stdio test server, n times."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(MCP_SERVER), "stdio"])
    times = []
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("echo", {"text": "warm"})
            for i in range(n):
                start = time.perf_counter()
                result = await session.call_tool("echo", {"text": f"x{i}"})
                times.append(time.perf_counter() - start)
                if result.isError or getattr(result.content[0], "text", None) != f"x{i}":
                    raise BenchmarkError(f"direct MCP call: wrong result {result!r}")
    return times


async def _timed_turn(conn: Any, client: Any, session: str, prompt: str) -> float:
    done = client.completed[session]
    start = time.perf_counter()
    stop_reason = await _prompt(conn, session, prompt)
    elapsed = time.perf_counter() - start
    await _until(lambda: client.completed[session] > done, f"{prompt!r} to complete")
    if stop_reason != "end_turn":
        raise BenchmarkError(f"{prompt!r}: stop reason {stop_reason!r}")
    return elapsed


async def bench_mcp(sizes: Sizes, results: Results) -> None:
    """Row (mcp): an MCP tool call through the agent against the same call on a ClientSession."""
    try:
        import langacp_mcp  # noqa: F401
    except ImportError:
        return
    from acp.schema import McpServerStdio

    results.mcp_installed = True
    n = results.mcp_calls = sizes.runs * 10
    results.mcp_direct_s = statistics.median(await _mcp_direct(n))
    server = McpServerStdio(name="bench", command=sys.executable, args=[str(MCP_SERVER), "stdio"], env=[])
    client = _make_client()
    with tempfile.TemporaryDirectory() as config_home:  # no user-configured servers
        async with agent_process(client, args=("-p", "mcp"), env={"XDG_CONFIG_HOME": config_home}) as (conn, _):
            await _initialize(conn)
            await _prompt(conn, await _new_session(conn), "echo hi")
            plain, with_server = [], []
            for _ in range(sizes.runs):
                start = time.perf_counter()
                await _new_session(conn)
                plain.append(time.perf_counter() - start)
                start = time.perf_counter()
                opened = await conn.new_session(cwd=str(REPO), mcp_servers=[server])
                with_server.append(time.perf_counter() - start)
                await conn.close_session(session_id=opened.session_id)
            session = (await conn.new_session(cwd=str(REPO), mcp_servers=[server])).session_id
            await _timed_turn(conn, client, session, 'tool bench__echo {"text": "warm"}')
            via_mcp, local = [], []
            for i in range(n):  # interleaved: both see the same growing thread
                via_mcp.append(await _timed_turn(conn, client, session, f'tool bench__echo {{"text": "x{i}"}}'))
                local.append(await _timed_turn(conn, client, session, f'tool add {{"a": {i}, "b": 1}}'))
            if not client.full_text(session).endswith(f"done: {n}"):
                raise BenchmarkError("the MCP benchmark turns answered wrongly")
    results.mcp_turn_s = statistics.median(via_mcp)
    results.mcp_local_turn_s = statistics.median(local)
    results.mcp_session_new_s = statistics.median(with_server)
    results.mcp_plain_session_new_s = statistics.median(plain)


def _mcp_rows(r: Results) -> list[tuple[str, ...]]:
    if not r.mcp_installed:
        return [("(mcp) skipped: langacp-mcp is not installed", "", "", "", "")]
    mcp_part = r.mcp_turn_s - r.mcp_local_turn_s
    return [
        (
            f"(mcp) turn calling an MCP stdio tool (median of {r.mcp_calls})",
            f"{r.mcp_turn_s * 1000:.1f} ms",
            f"{r.mcp_direct_s * 1000:.2f} ms `ClientSession.call_tool`",
            f"{(r.mcp_turn_s - r.mcp_direct_s) * 1000:+.1f} ms",
            "",
        ),
        (
            "(mcp) the same turn calling a local tool instead",
            f"{r.mcp_local_turn_s * 1000:.1f} ms",
            "",
            f"MCP part {mcp_part * 1000:.2f} ms = {mcp_part / r.mcp_direct_s:.2f}× the direct call",
            "",
        ),
        (
            "(mcp) session/new with one stdio MCP server (median)",
            f"{r.mcp_session_new_s * 1000:.0f} ms",
            f"{r.mcp_plain_session_new_s * 1000:.0f} ms without",
            f"{(r.mcp_session_new_s - r.mcp_plain_session_new_s) * 1000:+.0f} ms",
            "",
        ),
    ]


LOAD_TURNS = 250
"""Turns of the stored session of row (h): four messages each."""


async def _store_session(url: str, turns: int) -> tuple[str, int]:
    """Write a session of ``turns`` turns (question, tool call, tool result, answer) with its record."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from langacp.stores import SessionRecord, open_store
    from langacp.testing.model import ScriptedChatModel

    store: Any = open_store(url)
    await store.aopen()
    try:
        graph = create_agent(
            ScriptedChatModel(),
            tools=_load_scripted().TOOLS,
            system_prompt=SYSTEM_PROMPT,
            checkpointer=store.checkpointer,
        )
        session_id = uuid.uuid4().hex
        messages: list[Any] = []
        for i in range(turns):
            call = {"name": "add", "args": {"a": i, "b": 1}, "id": f"call_{i}", "type": "tool_call"}
            messages += [
                HumanMessage(f'tool add {{"a": {i}, "b": 1}}'),
                AIMessage("", tool_calls=[call]),
                ToolMessage(str(i + 1), tool_call_id=f"call_{i}", name="add"),
                AIMessage(f"done: {i + 1}"),
            ]
        await graph.aupdate_state({"configurable": {"thread_id": session_id}}, {"messages": messages}, as_node="model")
        await store.put(SessionRecord(session_id=session_id, cwd=str(REPO), title="stored"))
    finally:
        await store.aclose()
    return session_id, len(messages)


async def _checkpoint_reads(
    url: str, session_id: str, stack: contextlib.AsyncExitStack
) -> Callable[[], Awaitable[tuple[float, float]]]:
    """A function timing one ``checkpointer.aget_tuple`` of the session's thread: (wall, CPU) seconds.

    The store is opened once (closed with ``stack``) and read once to warm it up.
    """
    from langacp.stores import open_store

    store: Any = open_store(url)
    await store.aopen()
    stack.push_async_callback(store.aclose)
    config = {"configurable": {"thread_id": session_id, "checkpoint_ns": ""}}

    async def read() -> tuple[float, float]:
        cpu_before = time.process_time()
        start = time.perf_counter()
        tup = await store.checkpointer.aget_tuple(config)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_before
        if tup is None:
            raise BenchmarkError("the stored checkpoint is missing")
        return wall, cpu

    await read()
    return read


def cpu_clock(pid: int) -> int | None:
    """The CPU-time clock of process ``pid`` (all its threads) for ``time.clock_gettime``; ``None`` if unavailable."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        clock = ctypes.c_int()
        if libc.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
            return None
        time.clock_gettime(clock.value)  # readable (a process of another user is not)
        return clock.value
    except (OSError, AttributeError):
        return None


@dataclass
class LoadTimes:
    """One form's ``session/load`` runs: wall seconds, the agent process's CPU seconds, this process's CPU seconds."""

    wall: list[float] = field(default_factory=list)
    agent_cpu: list[float] = field(default_factory=list)
    client_cpu: list[float] = field(default_factory=list)


async def load_forms(
    forms: dict[str, tuple[list[str] | None, dict[str, str]]], runs: int
) -> tuple[float, float, dict[str, LoadTimes]]:
    """``session/load`` of a stored 1,000-message session by each form, interleaved.

    ``forms``: name → (the command serving the factory target without ``--store``, ``None``
    for :data:`AGENT_CMD`; environment variables it adds).

    Returns ``aget_tuple``'s median wall and CPU seconds and each form's runs. Each form loads a
    copy of the session of its own (a session is served by one process at a time), its agent
    spawned once; each run reads the checkpoint with ``aget_tuple`` in this process, then loads it
    in each form, so the machine's load hits all alike. The agent's CPU time is read from its
    process CPU clock (every thread), so its share is measured apart from the client's parsing.
    """
    with tempfile.TemporaryDirectory(prefix="langacp-bench-") as tmp:
        url = f"sqlite://{Path(tmp) / 'sessions.db'}"
        sessions = {name: (await _store_session(url, LOAD_TURNS))[0] for name in forms}
        times = {name: LoadTimes() for name in forms}
        checkpoint_wall: list[float] = []
        checkpoint_cpu: list[float] = []
        async with contextlib.AsyncExitStack() as stack:
            read = await _checkpoint_reads(url, next(iter(sessions.values())), stack)
            agents = {}
            for name, (command, env) in forms.items():
                client = _make_client()
                conn, process = await stack.enter_async_context(
                    agent_process(client, store=["--store", url], env=env, command=command)
                )
                await _initialize(conn)
                await _prompt(conn, await _new_session(conn), "echo hi")  # the target imported, graph code warm
                agents[name] = (conn, client, cpu_clock(process.pid))
            for run in range(runs + 1):  # the first load of each is a warm-up
                gc.collect()
                wall, cpu = await read()
                checkpoint_wall.append(wall)
                checkpoint_cpu.append(cpu)
                for name, (conn, client, clock) in agents.items():
                    session_id = sessions[name]
                    client.updates.clear()
                    gc.collect()
                    agent_before = time.clock_gettime(clock) if clock is not None else 0.0
                    cpu_before = time.process_time()
                    start = time.perf_counter()
                    await conn.load_session(cwd=str(REPO), session_id=session_id, mcp_servers=[])
                    wall = time.perf_counter() - start
                    client_cpu = time.process_time() - cpu_before
                    agent_cpu = time.clock_gettime(clock) - agent_before if clock is not None else 0.0
                    calls = [u for u in client.of(session_id, "tool_call") if u.status == "completed"]
                    if len(calls) != LOAD_TURNS or len(client.of(session_id, "user_message_chunk")) != LOAD_TURNS:
                        raise BenchmarkError(
                            f"{name}: session/load replayed {len(calls)} completed tool calls of {LOAD_TURNS}"
                        )
                    await conn.close_session(session_id=session_id)
                    if run:
                        times[name].wall.append(wall)
                        times[name].client_cpu.append(client_cpu)
                        if clock is not None:
                            times[name].agent_cpu.append(agent_cpu)
        return statistics.median(checkpoint_wall[1:]), statistics.median(checkpoint_cpu[1:]), times


async def bench_load(sizes: Sizes, results: Results) -> None:
    """Row (h): session/load of a stored 1,000-message session against ``aget_tuple`` of its checkpoint."""
    from importlib.metadata import entry_points

    if not any(ep.name == "sqlite" for ep in entry_points(group="langacp.stores")):
        return
    results.load_messages = 4 * LOAD_TURNS
    results.load_checkpoint_s, _, times = await load_forms({"served": (None, {})}, sizes.runs)
    results.load_s = statistics.median(times["served"].wall)


async def run(sizes: Sizes) -> Results:
    """Every measurement, in one run."""
    results = Results(sizes=asdict(sizes))
    start = time.perf_counter()
    results.burst = await bench_streaming(sizes, 0.0)
    results.yielding = await bench_streaming(sizes, YIELD_DELAY)
    await bench_tools(sizes, results)
    await bench_concurrency(sizes, results)
    await bench_cold_start(sizes, results)
    await bench_memory(sizes, results)
    await bench_cancel(sizes, results)
    await bench_eof_exit(sizes, results)
    await bench_mcp(sizes, results)
    await bench_load(sizes, results)
    results.total_s = time.perf_counter() - start
    return results


# -- report ---------------------------------------------------------------------------------------


def _rate(value: float, unit: str) -> str:
    return f"{value:,.0f} {unit}"


def _streaming_rows(label: str, sizes: Sizes, r: Streaming) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for n, served, inproc, messages in (
        (sizes.stream_small, r.small_served, r.small_inproc, r.small_messages),
        (sizes.stream_large, r.large_served, r.large_inproc, r.large_messages),
    ):
        rows.append(
            (
                f"(a) streaming {n:,} tokens, {label}",
                f"{_rate(served, 'tok/s')} in {messages:,} msg",
                _rate(inproc, "tok/s") + " in-process",
                f"{served / inproc:.2f}×",
                "≥ 0.8",
            )
        )
    rows.append(
        (
            f"(a) growth {sizes.stream_small:,} → {sizes.stream_large:,} tokens, {label}",
            f"{r.large_served / r.small_served:.2f}×",
            f"{r.large_inproc / r.small_inproc:.2f}× in-process",
            "",
            "≈ 1 (no slowdown)",
        )
    )
    return rows


def render(sizes: Sizes, r: Results) -> str:
    """The Markdown table."""
    rows: list[tuple[str, ...]] = [
        ("Measurement", "langacp over ACP", "baseline", "ratio / Δ", "goal"),
        *_streaming_rows("model never yields", sizes, r.burst),
        *_streaming_rows("model yields per token", sizes, r.yielding),
        (
            f"(b) tools: {sizes.tools} sequential calls in one turn",
            _rate(r.tools_served, "calls/s"),
            _rate(r.tools_inproc, "calls/s") + " in-process",
            f"{r.tools_served / r.tools_inproc:.2f}×",
            "≥ 0.9",
        ),
        (
            f"(c) spawn → initialize (median of {sizes.runs})",
            f"{r.initialize_s:.3f} s",
            f"{r.import_acp_s:.3f} s `import acp`",
            f"{r.initialize_s - r.import_acp_s:+.3f} s",
            "≤ +0.3 s",
        ),
        (
            f"(c) spawn → session/new (median of {sizes.runs})",
            f"{r.session_new_s:.3f} s",
            f"{r.import_both_s:.3f} s `import acp, langchain.agents`",
            f"{r.session_new_s - r.import_both_s:+.3f} s",
            "",
        ),
        (
            "(c) floors: `import acp` / `import langchain.agents`",
            "",
            f"{r.import_acp_s:.3f} s / {r.import_langchain_agents_s:.3f} s",
            f"session/new {r.session_new_s - r.import_acp_s:+.3f} s vs `import acp`",
            "",
        ),
        (
            f"(d) {sizes.sessions} sessions × {sizes.session_tokens:,} tokens at once (yielding model)",
            _rate(r.concurrent_aggregate, "tok/s") + " aggregate",
            _rate(r.concurrent_single, "tok/s") + " one session alone",
            f"{r.concurrent_aggregate / r.concurrent_single:.2f}×",
            "≥ 0.9",
        ),
        ("(e) RSS after initialize", f"{r.rss_initialize_mb:.1f} MB", "", "", ""),
        ("(e) RSS after 1 session + `echo hi`", f"{r.rss_one_session_mb:.1f} MB", "", "", ""),
        (
            f"(e) RSS after {sizes.rss_sessions} sessions + `echo hi`",
            f"{r.rss_sessions_mb:.1f} MB",
            "",
            f"{r.rss_per_session_kb:,.0f} KB / session",
            "",
        ),
        (
            f"(f) session/cancel → cancelled, during a 60 s async tool (median of {sizes.runs})",
            f"{r.cancel_tool_s * 1000:.1f} ms",
            "",
            "",
            "≤ 100 ms",
        ),
        (
            f"(f) session/cancel → cancelled, while streaming (median of {sizes.runs})",
            f"{r.cancel_stream_s * 1000:.1f} ms",
            "",
            "",
            "≤ 100 ms",
        ),
        (
            f"(g) stdin EOF → exit 0, a 60 s sync tool running (median of {sizes.runs})",
            f"{r.eof_exit_s * 1000:.0f} ms",
            "",
            "",
            "≤ 2 s",
        ),
        *_mcp_rows(r),
    ]
    if r.load_s:
        rows.append(
            (
                f"(h) session/load of a {r.load_messages:,}-message session, SQLite (median of {sizes.runs})",
                f"{r.load_s * 1000:.1f} ms",
                f"{r.load_checkpoint_s * 1000:.1f} ms `checkpointer.aget_tuple`",
                f"{r.load_s / r.load_checkpoint_s:.1f}×",
                "",
            )
        )
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines.insert(1, "|" + "|".join(["---"] * len(rows[0])) + "|")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, under a minute")
    parser.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    parser.add_argument("--plugins", action="store_true", help="let the agent load installed entry-point plugins")
    args = parser.parse_args(argv)
    os.chdir(REPO)
    # The default store (sqlite, when installed) must not write into the user's own data directory.
    data_home = tempfile.TemporaryDirectory(prefix="langacp-bench-data-")
    os.environ["XDG_DATA_HOME"] = data_home.name
    if not args.plugins:
        os.environ[NO_AUTOLOAD_ENV] = "1"  # inherited by every agent process: core plugins only
    # The tools row makes 51 model calls in one prompt: over langacp-stop-reasons' default limit.
    os.environ.setdefault("LANGACP_MAX_MODEL_CALLS", "0")
    sizes = QUICK if args.quick else FULL
    try:
        results = asyncio.run(run(sizes))
        results.plugins = args.plugins
    except BenchmarkError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1
    print(render(sizes, results))
    print(
        f"\n{'quick' if args.quick else 'full'} run, {results.total_s:.0f} s, {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}, {'installed plugins' if args.plugins else 'core plugins only'}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(asdict(results), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
