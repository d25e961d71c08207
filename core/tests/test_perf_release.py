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
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from langacp import tracing
from langacp.agent import LangacpAgent
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
    for i in range(3):
        session_id = (await agent.new_session(cwd=str(tmp_path))).session_id
        response = await agent.prompt(session_id=session_id, prompt=[text_block('tool add {"a": 1, "b": 2}')])
        assert response.stop_reason == "end_turn"
        session = agent.registry.live[session_id]
        refs += [weakref.ref(session), weakref.ref(session.context), weakref.ref(session.sink)]
        # A precompiled graph is shared by every session, by design; so is a factory's graph from
        # the second session of a configuration on (it holds stand-ins, none of the session's objects).
        if attr == "agent" and i == 0:
            refs.append(weakref.ref(session.graph))
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


def test_install_keeps_an_override_the_application_set() -> None:
    import langsmith
    from langsmith._runtime_overrides import get_runtime_overrides

    async def theirs(default: Any, ctx: contextvars.Context, func: Any, *args: Any, **kwargs: Any) -> Any:
        return await default(ctx, func, *args, **kwargs)

    saved = get_runtime_overrides().aio_to_thread
    try:
        langsmith.set_runtime_overrides(aio_to_thread=theirs)
        assert tracing.install() is False
        assert get_runtime_overrides().aio_to_thread is theirs
        langsmith.set_runtime_overrides()
        assert tracing.install() is True
        assert get_runtime_overrides().aio_to_thread is tracing.inline_when_not_tracing
    finally:
        langsmith.set_runtime_overrides(aio_to_thread=saved)
