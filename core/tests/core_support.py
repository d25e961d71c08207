"""Shared helpers of the core tests (not fixtures: those live in conftest.py).

A uniquely named module rather than ``from conftest import``: every plugin's tests run in the same
pytest process, and each directory may have its own conftest.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


class RawAgent:
    """An agent spoken to in raw JSON lines, for malformed-input tests (``harness.RawPipes``, or a subprocess)."""

    def __init__(self, process: asyncio.subprocess.Process | harness.RawPipes) -> None:
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
