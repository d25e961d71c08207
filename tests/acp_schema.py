"""The official ACP JSON schema (npm ``@agentclientprotocol/sdk``, installed by the test); an agent over real pipes.

Used by the protocol tests (tests/test_protocol_*.py): every update langacp sends to a client is
validated against ``schema/v1/schema.json``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from langacp.testing import harness


class Schema:
    """The stable v1 schema: ``validate(name, value)`` checks ``value`` against ``$defs[name]``."""

    def __init__(self, path: Path) -> None:
        self.document: dict[str, Any] = json.loads(path.read_text())
        self.defs: dict[str, Any] = self.document["$defs"]
        self._validators: dict[str, Draft202012Validator] = {}

    def validator(self, name: str) -> Draft202012Validator:
        if name not in self._validators:
            self._validators[name] = Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": self.defs})
        return self._validators[name]

    def errors(self, name: str, value: Any) -> list[str]:
        return [f"{list(e.absolute_path)}: {e.message}" for e in self.validator(name).iter_errors(value)]

    def validate(self, name: str, value: Any) -> None:
        errors = self.errors(name, value)
        assert not errors, f"{name} {json.dumps(value)[:400]}: {errors[:3]}"

    def properties(self, name: str) -> dict[str, Any]:
        """The properties of ``$defs[name]``, those of its ``allOf`` parts included."""
        definition = self.defs[name]
        found = dict(definition.get("properties", {}))
        for part in definition.get("allOf", []):
            if "$ref" in part:
                found.update(self.properties(part["$ref"].rsplit("/", 1)[1]))
        return found


class PipeAgent:
    """``langacp serve`` as a subprocess spoken to in JSON lines over its real stdin / stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.notifications: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def request(self, msg_id: int, method: str, params: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        await self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
            assert line, "the agent closed stdout"
            message: dict[str, Any] = json.loads(line)
            if "method" in message and "id" in message:
                self.requests.append(message)  # a request to the client: answered as a client that cannot
                await self.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
            elif "method" in message:
                self.notifications.append(message)
            elif message.get("id") == msg_id:
                return message

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            n["params"]["update"]
            for n in self.notifications
            if n["method"] == "session/update" and (session_id is None or n["params"]["sessionId"] == session_id)
        ]


def validated(schema: Schema, agent: PipeAgent) -> list[dict[str, Any]]:
    """The session updates the agent sent so far, each checked against ``SessionNotification``."""
    for note in agent.notifications:
        if note["method"] == "session/update":
            schema.validate("SessionNotification", note["params"])
    return agent.updates()


async def open_session(agent: PipeAgent, capabilities: dict[str, Any], cwd: Path) -> str:
    """``initialize`` (v1, ``capabilities``) and ``session/new`` in ``cwd`` with ids 0 and 1: the session id."""
    reply = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities})
    assert "result" in reply, reply
    reply = await agent.request(1, "session/new", {"cwd": str(cwd), "mcpServers": []})
    session_id: str = reply["result"]["sessionId"]
    return session_id


async def prompt(agent: PipeAgent, msg_id: int, session_id: str, text: str) -> str:
    """One text prompt; its stop reason."""
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    reply = await agent.request(msg_id, "session/prompt", params)
    assert "result" in reply, reply
    stop: str = reply["result"]["stopReason"]
    return stop


@asynccontextmanager
async def pipe_agent(
    target: str,
    tmp_path: Path,
    *,
    env: dict[str, str] | None = None,
    plugins: list[str] | None = None,
    args: list[str] | None = None,
) -> AsyncIterator[PipeAgent]:
    """``langacp serve TARGET`` over real pipes (only ``plugins`` enabled), its stderr in ``tmp_path/agent.stderr``."""
    async with served_process(target, tmp_path, env=env, plugins=plugins, args=args) as process:
        yield PipeAgent(process)


@asynccontextmanager
async def served_process(
    target: str,
    tmp_path: Path,
    *,
    env: dict[str, str] | None = None,
    plugins: list[str] | None = None,
    args: list[str] | None = None,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The ``langacp serve TARGET`` process (clean ``LANGACP_*`` env, own data dir); stdin closed and reaped on exit."""
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")},
        "LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1",
        "XDG_DATA_HOME": str(tmp_path / "data"),
        **(env or {}),
    }
    with (tmp_path / "agent.stderr").open("a") as stderr:
        process = await asyncio.create_subprocess_exec(
            *harness.serve_command(target, *(args or []), plugins=plugins or []),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=environment,
        )
        try:
            yield process
        finally:
            if process.stdin is not None:
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
