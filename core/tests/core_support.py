"""Shared helpers of the core tests (not fixtures: those live in conftest.py).

A uniquely named module rather than ``from conftest import``: every plugin's tests run in the same
pytest process, and each directory may have its own conftest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
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


RELAY = """\
import os, socket, sys, threading
sock = socket.socket(socket.AF_UNIX)
sock.connect(sys.argv[1])

def down():
    while data := sock.recv(65536):
        view = memoryview(data)
        while view:
            view = view[os.write(1, view):]
    os._exit(0)

threading.Thread(target=down, daemon=True).start()
while data := os.read(0, 65536):
    sock.sendall(data)
os._exit(0)
"""
"""An agent process that is a pipe: its stdin to the socket, the socket to its stdout; it ends at stdin's end."""


@asynccontextmanager
async def agent_in_process(
    target: str = f"{SCRIPTED}:agent",
    *,
    testplug: Sequence[str] = (),
    env: dict[str, str] | None = None,
    prelude: str = "",
) -> AsyncIterator[list[str]]:
    """The command of a real agent process: a relay (stdlib Python, no imports to wait for) to ``target``
    served in this process behind ``langacp serve``'s guarded transport, over OS pipes.

    For tests of what a client does with an agent process (spawn, stderr, exit, kill) or with what
    the agent sends, without a Python start-up per test. One connection: each command spawned is
    one agent (a second spawn needs a second ``agent_in_process``). ``prelude`` is Python the relay
    runs first (e.g. writing to its stderr).
    """
    environment = agent_env(testplug=testplug, extra=env)
    plugins = ["testplug"] if testplug else []
    with tempfile.TemporaryDirectory(prefix="langacp-chat-") as tmp:  # short: a socket path has ~100 bytes
        path = os.path.join(tmp, "agent.sock")
        async with harness.serve_raw_in_process(target, plugins=plugins, env=environment, isolate=False) as pipes:

            async def bridge(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                async def down() -> None:
                    while data := await pipes.stdout.read(65536):
                        writer.write(data)
                        await writer.drain()

                forward = asyncio.ensure_future(down())
                try:
                    while data := await reader.read(65536):
                        pipes.stdin.write(data)
                        await pipes.stdin.drain()
                    pipes.stdin.close()  # the relay's stdin ended: so does the agent's
                except ConnectionError:
                    pass
                finally:
                    forward.cancel()
                    with contextlib.suppress(Exception, asyncio.CancelledError):
                        await forward
                    writer.close()

            server = await asyncio.start_unix_server(bridge, path)
            try:
                yield [sys.executable, "-S", "-c", prelude + "\n" + RELAY, path]
            finally:
                server.close()


def delta_graph(checkpointer: Any) -> Any:
    """A graph whose one channel is a ``DeltaChannel`` (each run appends ``"x"`` to the input)."""
    from typing import Annotated, TypedDict

    from langgraph.channels import DeltaChannel
    from langgraph.graph import END, START, StateGraph

    append = DeltaChannel(lambda state, writes: state + [x for w in writes for x in w])
    # the functional form: its annotation is evaluated here (this module has postponed annotations)
    state = TypedDict("state", {"items": Annotated[list[str], append]})  # type: ignore[misc]  # noqa: UP013
    graph = StateGraph(state)
    graph.add_node("append", lambda state: {"items": ["x"]})
    graph.add_edge(START, "append")
    graph.add_edge("append", END)
    return graph.compile(checkpointer=checkpointer)
