"""What opening a session costs, piece by piece, in one process: ``session/load`` and ``session/new``.

Run from the repository root::

    python tests/bench/open_pieces.py [--target agent|shared_model_agent] [--turns 1] [--loads 40]
                                      [--profile N] [--no-plugins]

The agent class (``LangacpAgent``, every installed plugin, ``--store sqlite`` on a temporary file)
with a client that answers in-process (no pipe: what is timed is the agent's own work). One
session does ``--turns`` turns of ``tool add``, is closed, then loaded and closed ``--loads``
times (and as many sessions made and closed). Each piece of the opening is timed where it is
called (process CPU, medians over the loads, nested pieces included in their parent), beside
what the dependencies cost for the same work timed alone: ``aget_tuple`` and ``aget_state`` of
the thread, ``create_agent`` compiling the same tools and middleware (what a factory that
shares nothing would pay every session) and the bare graph's (``TOOLS``, no middleware).
``--profile N``: a ``cProfile`` of N more loads (top 25 by own time and by cumulative time).
Nothing is asserted on time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import functools
import gc
import inspect
import io
import pstats
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

_spent: dict[str, list[float]] = defaultdict(list)
_current: dict[str, float] = defaultdict(float)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (sync or async) with its CPU time added to ``name`` for the running load."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def acall(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return await fn(*args, **kwargs)
            finally:
                _current[name] += time.process_time() - start

        return acall

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _current[name] += time.process_time() - start

    return call


def _patch(owner: Any, attr: str, name: str) -> None:
    setattr(owner, attr, _timed(name, getattr(owner, attr)))


def instrument(agent: Any, by_plugin: bool = False) -> None:
    """Timers around each piece of opening a session (module attributes the opening code looks up when it runs)."""
    import langacp.agent.sessions as sessions_mod
    import langacp.middleware as middleware_mod
    import langacp.operations as operations_mod
    import langacp.plugins as plugins_mod
    import langacp.replay as replay_mod
    import langacp.shared_graphs as shared_mod
    import langacp.target as target_mod
    from langacp.agent.live_session import Session

    registry = agent.registry
    plugins = agent.plugins
    _patch(registry.leases, "take", "lease taken")
    _patch(registry, "stored_record", "record read (store.get)")
    _patch(registry, "_build", "build: hooks + factory")
    _patch(registry, "_repair", "thread read (aget_state) + repair check")
    _patch(plugins, "session_loaded", "build: session_loaded (+ open_layers)")
    _patch(plugins, "session_created", "build: session_created (+ open_layers)")
    _patch(plugins_mod, "open_layers", "build: . open_layers")
    _patch(plugins, "session_middleware", "build: session_middleware")
    _patch(plugins, "session_tools", "build: session_tools")
    _patch(plugins, "system_prompt_additions", "build: system_prompt_additions")
    _patch(middleware_mod, "core_middleware", "build: core_middleware")
    _patch(target_mod.Target, "build", "build: factory call (target.build)")
    _patch(shared_mod.SharedGraphs, "create_agent", "build: . shared graph lookup")
    _patch(shared_mod, "configuration_key", "build: . . configuration_key")
    _patch(target_mod, "tell_left_out", "build: . tell_left_out")
    _patch(target_mod, "merge_tools", "build: . merge_tools")
    _patch(operations_mod, "open_outbox", "outbox opened")
    _patch(operations_mod, "offered", "modes + config options (offered)")
    _patch(plugins, "available_commands", "commands (available_commands)")
    _patch(plugins, "session_modes", "session_modes")
    _patch(plugins, "config_options", "config_options")
    _patch(Session, "messages", "thread read: Session.messages (aget_state)")
    _patch(replay_mod, "replay_messages", "replay: replay_messages")
    _patch(replay_mod, "replay_questions", "replay: replay_questions")
    _patch(sessions_mod, "session_response", "response built")
    _patch(registry, "close", "close (not in the load)")
    if by_plugin:
        for hook in BY_PLUGIN:
            for impl in getattr(plugins.pm.hook, hook).get_hookimpls():
                impl.function = _timed(f"{hook[8:]}: {impl.plugin_name}", impl.function)
        plugins.direct._plans.clear()  # its plans hold the functions they found


BY_PLUGIN = (
    "langacp_session_loaded",
    "langacp_session_created",
    "langacp_session_middleware",
    "langacp_session_tools",
    "langacp_system_prompt",
    "langacp_session_modes",
    "langacp_config_options",
    "langacp_available_commands",
)
"""The session hooks timed per implementation with ``--by-plugin``."""


class Quiet:
    """An in-process client: takes every update, allows every tool call always."""

    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, **_: Any) -> None:
        self.updates += 1

    async def request_permission(self, **_: Any) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_always"))


def _median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:7.3f}" if values else "      -"


async def run(args: argparse.Namespace) -> None:
    from acp import text_block

    from langacp.agent import LangacpAgent
    from langacp.plugins import load_plugins

    with tempfile.TemporaryDirectory(prefix="langacp-open-") as tmp:
        plugins = load_plugins(autoload=False if args.no_plugins else None)
        agent = LangacpAgent(
            f"langacp.testing.agent:{args.target}", plugins, store_url=f"sqlite://{Path(tmp) / 'open.db'}"
        )
        client = Quiet()
        agent.on_connect(client)  # type: ignore[arg-type]
        await agent.initialize(protocol_version=1)
        sid = (await agent.new_session(cwd=str(REPO))).session_id
        for i in range(args.turns):
            response = await agent.prompt(session_id=sid, prompt=[text_block(f'tool add {{"a": {i}, "b": 1}}')])
            assert response.stop_reason == "end_turn", response
        await agent.close_session(session_id=sid)
        for _ in range(5):  # warm: imports, caches, the shared graph compiled
            await agent.load_session(cwd=str(REPO), session_id=sid)
            await agent.close_session(session_id=sid)
            made = (await agent.new_session(cwd=str(REPO))).session_id
            await agent.close_session(session_id=made)
        gc.collect()
        gc.freeze()  # as langacp serve does once started (langacp.startup_gc)
        if args.profile:  # uninstrumented
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(args.profile):
                await agent.load_session(cwd=str(REPO), session_id=sid)
                profiler.disable()
                await agent.close_session(session_id=sid)
                profiler.enable()
            profiler.disable()
            if args.profile_out:
                profiler.dump_stats(args.profile_out)
            for order in ("tottime", "cumulative"):
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(25)
                print(out.getvalue())
        else:
            instrument(agent, by_plugin=args.by_plugin)
            totals: dict[str, list[float]] = {"session/load": [], "session/new": []}
            for kind in ("session/load", "session/new"):
                for _ in range(args.loads):
                    _current.clear()
                    start = time.process_time()
                    if kind == "session/load":
                        await agent.load_session(cwd=str(REPO), session_id=sid)
                        spent = time.process_time() - start
                        await agent.close_session(session_id=sid)
                    else:
                        made = (await agent.new_session(cwd=str(REPO))).session_id
                        spent = time.process_time() - start
                        await agent.close_session(session_id=made)
                    totals[kind].append(spent)
                    for name, value in _current.items():
                        _spent[f"{kind}|{name}"].append(value)
            await report(agent, sid, totals, args)
        await agent.shutdown()


async def report(agent: Any, sid: str, totals: dict[str, list[float]], args: argparse.Namespace) -> None:
    from langchain.agents import create_agent

    from langacp.testing.agent import TOOLS, make_model

    for kind in ("session/load", "session/new"):
        print(f"\n{kind}: {_median_ms(totals[kind])} ms CPU (median of {len(totals[kind])}), pieces (median ms):")
        for key in sorted(k for k in _spent if k.startswith(kind + "|")):
            values = _spent[key] + [0.0] * (len(totals[kind]) - len(_spent[key]))
            print(f"  {_median_ms(values)}  {key.split('|', 1)[1]}")
    _target, store = await agent.loader.target_and_store()
    config: Any = {"configurable": {"thread_id": sid, "checkpoint_ns": ""}}
    await agent.load_session(cwd=str(REPO), session_id=sid)
    graph = agent.registry.live[sid].graph
    parts = _LAST_CREATE[-1] if _LAST_CREATE else None
    await agent.close_session(session_id=sid)
    alone: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.loads):
        start = time.process_time()
        await store.checkpointer.aget_tuple(config)
        alone["aget_tuple (LangGraph)"].append(time.process_time() - start)
        start = time.process_time()
        await graph.aget_state({"configurable": {"thread_id": sid}})
        alone["aget_state of the served graph (LangGraph)"].append(time.process_time() - start)
        await store.acquire(sid, "bench", 60.0)
        await store.release(sid, "bench")
        start = time.process_time()
        await graph.aget_state({"configurable": {"thread_id": sid}})
        alone["aget_state right after a write (a lease taken and given back)"].append(time.process_time() - start)
        await asyncio.sleep(0.005)
        start = time.process_time()
        await graph.aget_state({"configurable": {"thread_id": sid}})
        alone["aget_state after 5 ms idle"].append(time.process_time() - start)
    for _ in range(max(3, args.loads // 4)):
        if parts is not None:
            model, tools, prompt, middleware = parts
            start = time.process_time()
            create_agent(
                model, tools=tools, system_prompt=prompt, middleware=middleware, checkpointer=store.checkpointer
            )
            alone["create_agent, the session's tools + middleware (LangChain)"].append(time.process_time() - start)
        start = time.process_time()
        create_agent(make_model(), tools=TOOLS, system_prompt="s", checkpointer=store.checkpointer)
        alone["create_agent, the bare graph's (TOOLS, no middleware)"].append(time.process_time() - start)
        start = time.process_time()
        make_model()
        alone["the scripted model made (the factory's make_model)"].append(time.process_time() - start)
    print("\ndependencies timed alone (median ms CPU):")
    for name, values in alone.items():
        print(f"  {_median_ms(values)}  {name}")


_LAST_CREATE: list[Any] = []
"""The model, tools, prompt and middleware the last session's factory gave ``create_agent``."""


def _record_create_agent() -> None:
    import langacp.shared_graphs as shared_mod

    original = shared_mod.SharedGraphs.create_agent

    def create(self: Any, session: Any, model: Any, tools: Any, prompt: Any, middleware: Any, kwargs: Any) -> Any:
        _LAST_CREATE[:] = [(model, list(tools), prompt, list(middleware))]
        return original(self, session, model, tools, prompt, middleware, kwargs)

    shared_mod.SharedGraphs.create_agent = create  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="agent", choices=["agent", "shared_model_agent"])
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--loads", type=int, default=40)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--profile-out", type=Path, help="with --profile: also write the profile there")
    parser.add_argument("--by-plugin", action="store_true", help="also time each plugin's session hooks")
    parser.add_argument("--no-plugins", action="store_true", help="the core alone")
    args = parser.parse_args(argv)
    _record_create_agent()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
