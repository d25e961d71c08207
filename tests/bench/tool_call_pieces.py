"""What the factory form does per tool call that the graph form does not, each piece timed alone.

Run from the repository root::

    python tests/bench/tool_call_pieces.py [--repeat N] [--in-situ P] [--calls N]

One process serves ``langacp.testing.agent:agent`` (the factory, every installed plugin) through
the agent class with a client that answers *allow always*, runs one ``tools 3`` turn, keeps the
objects of its last model call and tool call (the tools the model was given, the tool guard and
its request), then times each piece in a loop: the minimum over ``--repeat`` runs of the CPU
time (this thread's) per call, in µs, so a busy machine inflates it less than it inflates the
forms table. A tool call is one model call and one tool call, so:

- **LangChain**: ``convert_to_openai_tool`` of the tools the plugins add (those the graph form
  does not have): what a provider's ``bind_tools`` (and the scripted model's) does with each
  tool at every model call; the graph form's own tools alongside, for scale.
- **LangSmith**: one ``traceable`` span around an async middleware hook, tracing off, with
  langacp's inline override (``langacp.tracing``): ``create_agent`` puts one around each of the
  tool guard's two hooks (its model-call and its tool-call hook).
- **langacp**: the permission check (a remembered *allow always*), a call's kind asked afresh
  (six implementations), ``langacp_tool_starting`` + ``langacp_tool_finished``, and the chain
  of the plugins' model-call wrappers around a model call that returns at once.

The first two are the floor of the factory form's cost per call over the graph form: work its
dependencies do for the tools and the middleware the factory adds, whatever langacp does.

Timed in a loop, each piece runs hot (its code and data in the CPU's caches); within a turn it
costs more. ``--in-situ P`` therefore also runs both forms in this process (the graph form and
the factory) and times P pairs of ``tools N`` turns (``--calls`` N; ABBA order, a new session
each, CPU of this process), three ways, interleaved pair by pair: **as served**; **without
langacp's per-call work** (the tool guard's two hooks made pass-throughs: no permission check,
no tool hooks, no plugin model-call wrappers; the middleware, so its two spans, stay); and
**also without converting the plugins' tools** (the scripted model converts only the agent's own
five). Per variant: the median of (factory - graph) CPU per tool call and its inter-quartile
range. A diagnostic: the second and third variants are not something langacp can serve.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def cpu_us(fn: Callable[[], Any], number: int, repeat: int) -> float:
    """The minimum over ``repeat`` runs of this thread's CPU time per call of ``fn``, in µs."""
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        for _ in range(number):
            fn()
        best = min(best, time.thread_time() - start)
    return best / number * 1e6


async def acpu_us(fn: Callable[[], Awaitable[Any]], number: int, repeat: int) -> float:
    """:func:`cpu_us` for a coroutine function (awaited in turn, on this loop)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        for _ in range(number):
            await fn()
        best = min(best, time.thread_time() - start)
    return best / number * 1e6


class AllowAlways:
    """A client that shows nothing and answers every permission request with *allow always*."""

    async def session_update(self, **_: Any) -> None:
        return None

    async def request_permission(self, **_: Any) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_always"))


async def captured_turn() -> dict[str, Any]:
    """One factory turn of three ``add`` calls; the objects of its last model call and tool call."""
    from acp import text_block

    from langacp import middleware, tracing
    from langacp.agent import LangacpAgent
    from langacp.default_agent.scripted_model import ScriptedChatModel
    from langacp.plugins import load_plugins

    seen: dict[str, Any] = {}
    guard_tool_call = middleware.ToolGuardMiddleware.awrap_tool_call
    wrappers_model_call = middleware.PluginWrappersMiddleware.awrap_model_call
    bind_tools = ScriptedChatModel.bind_tools

    async def on_tool_call(self: Any, request: Any, handler: Any) -> Any:
        seen["guard"], seen["tool_request"] = self, request
        result = await guard_tool_call(self, request, handler)
        seen["tool_result"] = result
        return result

    async def on_model_call(self: Any, request: Any, handler: Any) -> Any:
        response = await wrappers_model_call(self, request, handler)
        seen["model_request"], seen["model_response"] = request, response
        return response

    def on_bind(self: Any, tools: Any, **kwargs: Any) -> Any:
        seen["tools"] = list(tools)
        return bind_tools(self, tools, **kwargs)

    middleware.ToolGuardMiddleware.awrap_tool_call = on_tool_call  # type: ignore[method-assign]
    middleware.PluginWrappersMiddleware.awrap_model_call = on_model_call  # type: ignore[method-assign]
    ScriptedChatModel.bind_tools = on_bind  # type: ignore[method-assign]
    try:
        tracing.install()
        agent = LangacpAgent("langacp.testing.agent:agent", load_plugins(), store_url="memory")
        agent.on_connect(AllowAlways())  # type: ignore[arg-type]
        await agent.initialize(protocol_version=1)
        session_id = (await agent.new_session(cwd=str(REPO))).session_id
        await agent.prompt(session_id=session_id, prompt=[text_block("tools 3")])
    finally:
        middleware.ToolGuardMiddleware.awrap_tool_call = guard_tool_call  # type: ignore[method-assign]
        middleware.PluginWrappersMiddleware.awrap_model_call = wrappers_model_call  # type: ignore[method-assign]
        ScriptedChatModel.bind_tools = bind_tools  # type: ignore[method-assign]
    if not {"guard", "tools", "model_request"} <= seen.keys():
        raise SystemExit(
            "the factory turn did not call a tool through the tool guard (is langacp-permissions installed?)"
        )
    return seen


async def measure(repeat: int) -> list[tuple[str, str, float]]:
    """``(owner, piece, µs per tool call)`` for every piece (see the module docstring)."""
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langsmith import traceable

    from langacp.middleware import permission_refusal
    from langacp.testing.agent import TOOLS
    from langacp.types import ToolCallInfo

    seen = await captured_turn()
    guard, request = seen["guard"], seen["tool_request"]
    plugins, session = guard.plugins, guard.session
    own = {t.name for t in TOOLS}
    added = [t for t in seen["tools"] if getattr(t, "name", None) not in own]
    graph_tools = [t for t in seen["tools"] if getattr(t, "name", None) in own]
    call = ToolCallInfo.from_tool_call(dict(request.tool_call))
    plugins.tool_kind(call, session)

    async def hook(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(request)

    async def handler(request: Any) -> Any:
        return request

    spanned = traceable(name="langacp_tool_guard.awrap_tool_call", process_inputs=lambda inputs: inputs)(hook)
    model_response = seen["model_response"]

    async def model(_request: Any) -> Any:
        return model_response

    n = 300
    span = await acpu_us(lambda: spanned(1, handler), n * 10, repeat) - await acpu_us(
        lambda: hook(1, handler), n * 10, repeat
    )
    names = ", ".join(t.name for t in added)
    return [
        (
            "LangChain",
            f"`convert_to_openai_tool` of the {len(added)} tools the plugins add ({names}), per model call",
            cpu_us(lambda: [convert_to_openai_tool(t) for t in added], n, repeat),
        ),
        (
            "(graph form)",
            f"the same for the agent's own {len(graph_tools)} tools, which both forms convert",
            cpu_us(lambda: [convert_to_openai_tool(t) for t in graph_tools], n, repeat),
        ),
        ("LangSmith", "one span around a middleware hook, tracing off (two per tool call)", span),
        (
            "langacp",
            "the permission check (a remembered *allow always*)",
            await acpu_us(lambda: permission_refusal(plugins, session, call, request.tool), n * 3, repeat),
        ),
        (
            "langacp",
            "a call's kind, asked afresh",
            cpu_us(
                lambda: plugins.tool_kind(ToolCallInfo.from_tool_call(dict(request.tool_call)), session), n * 3, repeat
            ),
        ),
        (
            "langacp",
            "`langacp_tool_starting` + `langacp_tool_finished`",
            await acpu_us(lambda: _started_finished(plugins, session, call, seen["tool_result"]), n * 3, repeat),
        ),
        (
            "langacp",
            "the plugins' model-call wrappers, chained in the tool guard",
            await acpu_us(lambda: guard._composed(seen["model_request"], model), n * 3, repeat),
        ),
    ]


VARIANTS = ("as served", "without langacp's per-call work", "also without converting the plugins' tools")


async def in_situ(pairs: int, calls: int) -> dict[str, list[float]]:
    """(factory - graph) CPU seconds per tool call, ``pairs`` per variant (see the module docstring)."""
    import gc

    from acp import text_block

    from langacp import middleware, tracing
    from langacp.agent import LangacpAgent
    from langacp.default_agent.scripted_model import ScriptedChatModel
    from langacp.plugins import load_plugins
    from langacp.testing.agent import TOOLS

    served = (middleware.ToolGuardMiddleware.awrap_tool_call, middleware.PluginWrappersMiddleware.awrap_model_call)
    bind_tools = ScriptedChatModel.bind_tools
    own = {t.name for t in TOOLS}

    async def passing(self: Any, request: Any, handler: Any) -> Any:
        return await handler(request)

    def own_tools_only(self: Any, tools: Any, **kwargs: Any) -> Any:
        return bind_tools(self, [t for t in tools if getattr(t, "name", None) in own], **kwargs)

    def variant(index: int) -> None:
        tool_call, model_call = served if index == 0 else (passing, passing)
        middleware.ToolGuardMiddleware.awrap_tool_call = tool_call  # type: ignore[method-assign]
        middleware.PluginWrappersMiddleware.awrap_model_call = model_call  # type: ignore[method-assign]
        ScriptedChatModel.bind_tools = own_tools_only if index == 2 else bind_tools  # type: ignore[method-assign]

    agents = {}
    for form in ("graph", "agent"):
        agent = LangacpAgent(f"langacp.testing.agent:{form}", load_plugins(), store_url="memory")
        agent.on_connect(AllowAlways())  # type: ignore[arg-type]
        await agent.initialize(protocol_version=1)
        agents[form] = agent

    async def cpu_per_call(form: str) -> float:
        agent = agents[form]
        session_id = (await agent.new_session(cwd=str(REPO))).session_id
        start = time.process_time()
        await agent.prompt(session_id=session_id, prompt=[text_block(f"tools {calls}")])
        return (time.process_time() - start) / calls

    tracing.install()
    try:
        for form in agents:
            await cpu_per_call(form)  # the shared graph compiled, permission remembered, caches warm
        gc.collect()
        gc.freeze()
        diffs: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for index in range(pairs):
            for number, name in enumerate(VARIANTS):
                variant(number)
                order = ["graph", "agent"] if index % 4 in (0, 3) else ["agent", "graph"]
                measured = {form: await cpu_per_call(form) for form in order}
                diffs[name].append(measured["agent"] - measured["graph"])
    finally:
        variant(0)
    return diffs


async def _started_finished(plugins: Any, session: Any, call: Any, result: Any) -> None:
    await plugins.tool_starting(call, session)
    await plugins.tool_finished(call, result, session)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs of each loop; the minimum is kept (default 7)")
    parser.add_argument("--in-situ", type=int, default=0, metavar="P", help="also P pairs of turns per variant")
    parser.add_argument("--calls", type=int, default=30, help="tool calls per turn of --in-situ (default 30)")
    args = parser.parse_args(argv)
    os.chdir(REPO)
    os.environ["LANGACP_MAX_MODEL_CALLS"] = "0"
    rows = asyncio.run(measure(max(1, args.repeat)))
    print("| owner | per tool call | µs (CPU) |\n|---|---|---|")
    for owner, piece, us in rows:
        print(f"| {owner} | {piece} | {us:.0f} |")
    by = {owner: 0.0 for owner, _, _ in rows}
    for owner, _piece, us in rows:
        by[owner] += us * (2 if owner == "LangSmith" else 1)
    floor = by.get("LangChain", 0.0) + by.get("LangSmith", 0.0)
    own = by.get("langacp", 0.0)
    print(f"\nfloor (LangChain + two LangSmith spans): {floor:.0f} µs; langacp's own pieces: {own:.0f} µs")
    if args.in_situ > 0:
        import statistics

        diffs = asyncio.run(in_situ(args.in_situ, max(1, args.calls)))
        print(f"\n| in a turn ({args.calls} calls, {args.in_situ} pairs) | factory − graph, CPU per call | IQR |")
        print("|---|---|---|")
        for name, values in diffs.items():
            q1, _, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else (values[0],) * 3
            median = statistics.median(values)
            print(f"| {name} | {median * 1e6:+.0f} µs | {q1 * 1e6:+.0f}…{q3 * 1e6:+.0f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
