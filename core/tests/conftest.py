"""Fixtures: start ``langacp serve`` as a subprocess and drive it over real pipes."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from langacp.client import RecordingClient
from langacp.testing import harness
from langacp.testing.harness import ServedAgent

REPO = Path(__file__).resolve().parents[2]
SCRIPTED = "langacp.testing.agent"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
TESTPLUG_SITE = FIXTURES / "site"
BROKEN_SITE = FIXTURES / "broken"


def agent_env(
    *, testplug: Sequence[str] = (), broken: bool = False, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """The environment for an agent subprocess: ours minus LANGACP_*, plus fixture plugins.

    Autoload is off so that plugins installed beside the core (langacp-tools, …) do not leak
    into core tests; the fixture plugins a test asks for are enabled with ``-p NAME``.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    paths = [str(TESTPLUG_SITE)] if testplug else []
    if broken:
        paths.append(str(BROKEN_SITE))
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    if testplug:
        env["LANGACP_TESTPLUG"] = ",".join(testplug)
    env.update(extra or {})
    return env


def serve_command(target: str = "agent", *args: str, testplug: bool = False, broken: bool = False) -> list[str]:
    spec = target if ":" in target else f"{SCRIPTED}:{target}"
    enabled = [*(["testplug"] if testplug else []), *(["brokenplug"] if broken else [])]
    return harness.serve_command(spec, *args, plugins=enabled)


@dataclass
class Running(ServedAgent):
    """A served agent plus the fixture plugin's event log."""

    events_path: Path = Path("/nonexistent")

    def events(self) -> list[dict[str, Any]]:
        if not self.events_path.exists():
            return []
        return [json.loads(line) for line in self.events_path.read_text().splitlines() if line.strip()]


StartAgent = Callable[..., AbstractAsyncContextManager[Running]]


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
    ) -> AsyncIterator[Running]:
        events_path = tmp_path / f"events{next(counter)}.jsonl"
        extra = {"LANGACP_TEST_EVENTS": str(events_path), **(env or {})}
        spec = target if ":" in target else f"{SCRIPTED}:{target}"
        enabled = [*(["testplug"] if testplug else []), *(["brokenplug"] if broken else [])]
        async with harness.serve(
            spec,
            plugins=enabled,
            args=args,
            env=agent_env(testplug=testplug, broken=broken, extra=extra),
            client=client,
            isolate=False,  # agent_env already isolates
        ) as served:
            yield Running(**vars(served), events_path=events_path)

    return _start


class RawAgent:
    """An agent subprocess spoken to in raw JSON lines, for malformed-input tests."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.notifications: list[dict[str, Any]] = []

    async def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_raw(json.dumps(message).encode() + b"\n")

    async def recv(self, timeout: float = 15.0) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        assert line, "the agent closed stdout"
        message: dict[str, Any] = json.loads(line)
        return message

    async def request(self, msg_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        await self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        while True:
            reply = await self.recv()
            if "method" in reply:
                self.notifications.append(reply)
            elif reply.get("id") == msg_id:
                return reply


@pytest.fixture
def start_raw(tmp_path: Path) -> Callable[..., AbstractAsyncContextManager[RawAgent]]:
    @asynccontextmanager
    async def _start(target: str = "agent", env: dict[str, str] | None = None) -> AsyncIterator[RawAgent]:
        with (tmp_path / "raw.stderr").open("w") as stderr:
            process = await asyncio.create_subprocess_exec(
                *serve_command(target),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                env=agent_env(extra=env),
                cwd=str(REPO),
            )
            try:
                yield RawAgent(process)
            finally:
                if process.returncode is None:
                    process.kill()
                await process.wait()

    return _start
