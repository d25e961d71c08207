"""Fixtures: serve an agent (in this process, or ``langacp serve`` as a subprocess) and drive it.

``start_agent`` serves the agent in the test's own event loop (``harness.serve_in_process``):
the real ``LangacpAgent`` and plugins, the SDK's client, every message through JSON. Tests of
what only a process shows (stdout discipline, stdin EOF, a thread that never returns) pass
``subprocess=True`` and get ``langacp serve`` over real pipes. ``start_raw`` writes raw bytes
to an in-process agent through ``langacp serve``'s own guarded transport, over OS pipes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest
from core_support import SCRIPTED, RawAgent, Running, StartAgent, agent_env

from langacp.client import RecordingClient
from langacp.testing import harness


@pytest.fixture
def start_agent(tmp_path: Path) -> StartAgent:
    """``async with start_agent(target="agent", testplug=[...], args=[...]) as agent: ...``"""
    counter = iter(range(1000))

    @asynccontextmanager
    async def _start(
        target: str = "agent",
        *,
        args: Sequence[str] = (),
        testplug: Sequence[str] = (),
        broken: bool = False,
        env: dict[str, str] | None = None,
        client: RecordingClient | None = None,
        subprocess: bool = False,
    ) -> AsyncIterator[Running]:
        events_path = tmp_path / f"events{next(counter)}.jsonl"
        extra = {"LANGACP_TEST_EVENTS": str(events_path), **(env or {})}
        spec = target if ":" in target else f"{SCRIPTED}:{target}"
        enabled = [*(["testplug"] if testplug else []), *(["brokenplug"] if broken else [])]
        serve = harness.serve if subprocess else harness.serve_in_process
        async with serve(
            spec,
            plugins=enabled,
            args=args,
            env=agent_env(testplug=testplug, broken=broken, extra=extra),
            client=client,
            isolate=False,  # agent_env already isolates
        ) as served:
            yield Running(**vars(served), events_path=events_path)

    return _start


@pytest.fixture
def start_raw(tmp_path: Path) -> Callable[..., AbstractAsyncContextManager[RawAgent]]:
    """``async with start_raw() as agent``: raw bytes to the agent in this process, through its guarded
    transport; ``subprocess=True``: to ``langacp serve`` over real pipes (for what a thread left
    running would block in this process, e.g. a target whose import never ends)."""

    @asynccontextmanager
    async def _start(
        target: str = "agent",
        env: dict[str, str] | None = None,
        testplug: Sequence[str] = (),
        *,
        subprocess: bool = False,
    ) -> AsyncIterator[RawAgent]:
        spec = target if ":" in target else f"{SCRIPTED}:{target}"
        plugins = ["testplug"] if testplug else []
        environment = agent_env(testplug=testplug, extra=env)
        if not subprocess:
            async with harness.serve_raw_in_process(spec, plugins=plugins, env=environment, isolate=False) as pipes:
                yield RawAgent(pipes)
            return
        with (tmp_path / "raw.stderr").open("w") as stderr:
            process = await asyncio.create_subprocess_exec(
                *harness.serve_command(spec, plugins=plugins),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                env={**environment, "XDG_DATA_HOME": str(tmp_path / "data")},
            )
            try:
                yield RawAgent(process)
            finally:
                if process.returncode is None:
                    process.kill()
                await process.wait()

    return _start
