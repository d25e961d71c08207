"""A small ACP v2 test client: newline-delimited JSON-RPC over the agent's real pipes.

The Python SDK has no v2, so the v2 tests speak raw JSON-RPC (only tests do; the agent frames
its messages with the SDK's connection). Every message the agent sends is validated against the
official ``schema/v2/schema.json`` (npm ``@agentclientprotocol/sdk``, installed by the test):
responses by the method they answer, notifications and requests as ``AgentNotification`` /
``AgentRequest`` with their params' own definitions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp_schema import Schema, served_process

__all__ = ["RESPONSES", "V2Agent", "Watched", "v2_agent"]

RESPONSES = {
    "initialize": "InitializeResponse",
    "auth/login": "LoginAuthResponse",
    "auth/logout": "LogoutAuthResponse",
    "session/new": "NewSessionResponse",
    "session/prompt": "PromptResponse",
    "session/resume": "ResumeSessionResponse",
    "session/list": "ListSessionsResponse",
    "session/close": "CloseSessionResponse",
    "session/delete": "DeleteSessionResponse",
    "session/set_config_option": "SetSessionConfigOptionResponse",
    "tool_call/cancel": "CancelToolCallResponse",
    "terminal/cancel": "CancelTerminalResponse",
}
"""The schema definition of each method's result."""

REQUESTS = {"session/request_permission": "RequestPermissionRequest", "elicitation/create": "CreateElicitationRequest"}


ClientHandler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


class Watched:
    """What a background task reads from the agent: :meth:`wait_for` waits until it shows something."""

    def __init__(self) -> None:
        self._changed = asyncio.Event()
        """Set by the reader after each message (and at the end of the stream)."""

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
        """Until ``predicate()`` holds (checked after each message the agent sends)."""

        async def waiting() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(waiting(), timeout)


class V2Agent(Watched):
    """The agent over real pipes, read by a background task; everything it sends is schema-checked."""

    def __init__(self, process: asyncio.subprocess.Process, schema: Schema) -> None:
        super().__init__()
        self.process = process
        self.schema = schema
        self.notifications: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        """Schema violations found (asserted empty by :meth:`check`)."""
        self.on_request: ClientHandler | None = None
        """Answers the agent's requests (a permission, a form); without one: -32601."""
        self._pending: dict[int, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._next = 100
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    def start(self, method: str, params: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Send a request; the future of its whole response (``result`` or ``error``)."""
        self._next += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[self._next] = (method, future)
        asyncio.get_running_loop().create_task(
            self.send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        )
        return future

    async def request(self, method: str, params: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        return await asyncio.wait_for(self.start(method, params), timeout)

    async def call(self, method: str, params: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """The ``result`` of a request that must succeed."""
        reply = await self.request(method, params, timeout)
        assert "result" in reply, f"{method}: {reply}"
        result: dict[str, Any] = reply["result"]
        return result

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            n["params"]["update"]
            for n in self.notifications
            if n["method"] == "session/update" and (session_id is None or n["params"]["sessionId"] == session_id)
        ]

    def states(self, session_id: str | None = None) -> list[str]:
        """The ``state`` of each ``state_update`` so far, in order (``idle:<stopReason>`` for idle)."""
        found = []
        for u in self.updates(session_id):
            if u["sessionUpdate"] == "state_update":
                found.append(f"idle:{u.get('stopReason')}" if u["state"] == "idle" else u["state"])
        return found

    async def idle(self, session_id: str, count: int = 1, timeout: float = 30.0) -> None:
        """Until ``count`` idle ``state_update`` s arrived for the session."""
        await self.wait_for(lambda: sum(s.startswith("idle") for s in self.states(session_id)) >= count, timeout)

    def check(self) -> None:
        assert not self.errors, self.errors[:5]

    def _validate(self, name: str, value: Any, what: str) -> None:
        errors = self.schema.errors(name, value)
        if errors:
            self.errors.append(f"{what} is no {name}: {json.dumps(value)[:300]}: {errors[:2]}")

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while True:
            line = await self.process.stdout.readline()
            if not line:
                break
            message: dict[str, Any] = json.loads(line)
            if "method" in message and "id" in message:
                self.requests.append(message)
                self._validate("AgentRequest", message, message["method"])
                if message["method"] in REQUESTS:
                    self._validate(REQUESTS[message["method"]], message.get("params"), message["method"])
                asyncio.get_running_loop().create_task(self._answer(message))
            elif "method" in message:
                self.notifications.append(message)
                self._validate("AgentNotification", message, message["method"])
                if message["method"] == "session/update":
                    self._validate("UpdateSessionNotification", message["params"], "session/update")
            else:
                method, future = self._pending.pop(message.get("id"), ("", None))  # type: ignore[arg-type]
                if "result" in message and method in RESPONSES:
                    self._validate(RESPONSES[method], message["result"], f"{method} result")
                if "error" in message:
                    self._validate("Error", message["error"], f"{method} error")
                if future is not None and not future.done():
                    future.set_result(message)
            self._changed.set()
        self._changed.set()

    async def _answer(self, message: dict[str, Any]) -> None:
        if self.on_request is None:
            await self.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
            return
        result = await self.on_request(message["method"], message.get("params") or {})
        await self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    async def initialize(self, version: int = 2, **capabilities: Any) -> dict[str, Any]:
        params = {"protocolVersion": version, "info": {"name": "v2-test", "version": "1"}, "capabilities": capabilities}
        return await self.call("initialize", params)

    async def new_session(self, cwd: Path) -> dict[str, Any]:
        return await self.call("session/new", {"cwd": str(cwd), "mcpServers": []})

    async def prompt(self, session_id: str, text: str) -> dict[str, Any]:
        return await self.call("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})


@asynccontextmanager
async def v2_agent(
    target: str,
    tmp_path: Path,
    schema: Schema,
    *,
    env: dict[str, str] | None = None,
    plugins: list[str] | None = None,
    args: list[str] | None = None,
) -> AsyncIterator[V2Agent]:
    """``langacp serve TARGET`` over real pipes, spoken to in v2 by :class:`V2Agent`."""
    async with served_process(target, tmp_path, env=env, plugins=plugins, args=args) as process:
        agent = V2Agent(process, schema)
        try:
            yield agent
        finally:
            agent._reader.cancel()
