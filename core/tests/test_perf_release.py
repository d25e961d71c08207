"""Performance-related behaviour that is checked by outcome, never by time.

- A closed session is released: its graph, context and outbox are garbage once it is closed
  (what ``nox -s bench`` reports as KB kept per closed session).
- LangSmith's span bookkeeping around middleware runs inline while tracing is off and in a
  thread when it is on (``langacp.tracing``).
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import sys
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from langacp import tracing
from langacp.agent import LangacpAgent
from langacp.agent.loader import Loader
from langacp.plugins import load_plugins


class _Quiet:
    """A client that takes every update and sends nothing back."""

    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, **_: Any) -> None:
        self.updates += 1


@pytest.mark.parametrize("attr", ["agent", "graph"])
async def test_a_closed_session_is_released(attr: str, tmp_path: Path) -> None:
    # A synchronous tool (and the tool guard's checks) run in the loop's executor, in a copy of the
    # turn's context, which holds the session. A worker thread drops that work item only once it
    # runs again after handing back the result; on a busy machine the turn, the close and the
    # gc.collect() below can all come first. Waiting for the workers to end makes that release
    # certain (a session still held once they are gone is a leak).
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(thread_name_prefix="test-release")
    loop.set_default_executor(executor)
    agent = LangacpAgent(f"langacp.testing.agent:{attr}", load_plugins(autoload=False), store_url="memory")
    client = _Quiet()
    agent.on_connect(client)  # type: ignore[arg-type]
    await agent.initialize(protocol_version=1)
    refs: list[weakref.ref[Any]] = []
    for _ in range(3):
        session_id = (await agent.new_session(cwd=str(tmp_path))).session_id
        response = await agent.prompt(session_id=session_id, prompt=[text_block('tool add {"a": 1, "b": 2}')])
        assert response.stop_reason == "end_turn"
        session = agent.registry.live[session_id]
        refs += [weakref.ref(session), weakref.ref(session.context), weakref.ref(session.sink)]
        # A precompiled graph is shared by every session, by design; so is a factory's graph, from the
        # first session of a configuration on (it holds stand-ins, none of the session's objects).
        del session
        await agent.close_session(session_id=session_id)
    await asyncio.sleep(0)  # let the outboxes' sender tasks finish
    executor.shutdown(wait=True)  # nothing is queued: each worker ends once it gets the CPU
    loop.set_default_executor(ThreadPoolExecutor(thread_name_prefix="test-release-after"))
    gc.collect()
    assert client.updates > 0
    assert agent.registry.live == {}
    alive = [ref() for ref in refs if ref() is not None]
    assert alive == [], f"still referenced after close: {[type(obj).__name__ for obj in alive]}"
    await agent.shutdown()


async def test_span_bookkeeping_runs_inline_while_tracing_is_off() -> None:
    from langsmith import tracing_context

    threads: list[str] = []

    def bookkeeping() -> str:
        threads.append(threading.current_thread().name)
        return "done"

    async def default(ctx: contextvars.Context, func: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(ctx.run, func, *args, **kwargs)

    with tracing_context(enabled=False):
        assert await tracing.inline_when_not_tracing(default, contextvars.copy_context(), bookkeeping) == "done"
    with tracing_context(enabled=True):
        assert await tracing.inline_when_not_tracing(default, contextvars.copy_context(), bookkeeping) == "done"
    main = threading.current_thread().name
    assert threads[0] == main
    assert threads[1] != main


async def test_an_override_the_application_sets_replaces_langacps(tmp_path: Path, monkeypatch: Any) -> None:
    # langacp installs its override before it imports the TARGET, so the application's own (set when
    # its module is imported) is the one LangSmith uses; no private LangSmith API is read to know it.
    import langsmith
    from langsmith import traceable, tracing_context

    (tmp_path / "own_override_target.py").write_text(
        "import langsmith\n"
        "from langacp.testing.agent import TOOLS, make_model\n"
        "calls = []\n"
        "async def theirs(default, ctx, func, /, *args, **kwargs):\n"
        "    calls.append(func)\n"
        "    return await default(ctx, func, *args, **kwargs)\n"
        "langsmith.set_runtime_overrides(aio_to_thread=theirs)\n"
        "def agent(setup):\n"
        "    return setup.create_agent(make_model(), tools=TOOLS)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))

    @traceable
    async def span() -> str:
        return "done"

    try:
        Loader("own_override_target:agent", "memory")._load_target()
        import own_override_target  # type: ignore[import-not-found]

        with tracing_context(enabled=False):
            assert await span() == "done"
        assert own_override_target.calls, "the application's override was replaced by langacp's"

        # and without one of the application's, langacp's is the one LangSmith calls
        langsmith.set_runtime_overrides()
        used: list[Any] = []
        inline = tracing.inline_when_not_tracing

        async def recording(*args: Any, **kwargs: Any) -> Any:
            used.append(args[2])
            return await inline(*args, **kwargs)

        monkeypatch.setattr(tracing, "inline_when_not_tracing", recording)
        assert tracing.install() is True
        with tracing_context(enabled=False):
            assert await span() == "done"
        assert used
    finally:
        langsmith.set_runtime_overrides()
        sys.modules.pop("own_override_target", None)
