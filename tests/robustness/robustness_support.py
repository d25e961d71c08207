"""Helpers of the robustness tests: an agent subprocess spoken to in raw JSON-RPC lines."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

TARGET = "langacp.testing.agent:agent"
HERE = Path(__file__).parent


def agent_env(tmp: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Our environment minus LANGACP_*, plugin autoload off, the user's dirs under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["XDG_DATA_HOME"] = str(tmp / "data")
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    env.update(extra or {})
    return env


def serve_args(target: str = TARGET, *args: str, plugins: Sequence[str] = ()) -> list[str]:
    return [sys.executable, "-m", "langacp.cli", "serve", target, *args, *(a for p in plugins for a in ("-p", p))]


class RawAgent:
    """``langacp serve`` over real pipes; lines in, lines out, no SDK in between."""

    def __init__(self, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.process = process
        self.stderr_path = stderr
        self.notifications: list[dict[str, Any]] = []
        self._next_id = 1000

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    async def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def send(self, *messages: dict[str, Any]) -> None:
        """Write ``messages`` in one write (so they arrive in the same read)."""
        await self.send_raw(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    async def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        assert line, f"the agent closed stdout; stderr:\n{self.stderr()[-3000:]}"
        message: dict[str, Any] = json.loads(line)
        return message

    async def reply_to(self, msg_id: Any, timeout: float = 30.0) -> dict[str, Any]:
        """The response with ``msg_id``; notifications met on the way are kept."""
        while True:
            message = await self.recv(timeout)
            if "method" in message:
                self.notifications.append(message)
            elif message.get("id") == msg_id:
                return message

    async def request(self, method: str, params: Any, msg_id: Any = None) -> dict[str, Any]:
        if msg_id is None:
            self._next_id += 1
            msg_id = self._next_id
        await self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return await self.reply_to(msg_id)

    async def start(self, cwd: str) -> str:
        init = await self.request("initialize", {"protocolVersion": 1})
        assert "result" in init, init
        new = await self.request("session/new", {"cwd": cwd, "mcpServers": []})
        assert "result" in new, new
        session_id: str = new["result"]["sessionId"]
        return session_id

    def prompt_message(self, msg_id: int, session_id: str, text: str) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": msg_id,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
        }

    async def prompt(self, session_id: str, text: str) -> dict[str, Any]:
        self._next_id += 1
        await self.send(self.prompt_message(self._next_id, session_id, text))
        return await self.reply_to(self._next_id)


@asynccontextmanager
async def raw_agent(
    tmp: Path,
    target: str = TARGET,
    *args: str,
    plugins: Sequence[str] = (),
    env: dict[str, str] | None = None,
    name: str = "agent",
) -> AsyncIterator[RawAgent]:
    stderr_path = tmp / f"{name}.stderr"
    with stderr_path.open("w") as stderr:
        process = await asyncio.create_subprocess_exec(
            *serve_args(target, *args, plugins=plugins),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=agent_env(tmp, env),
            cwd=str(tmp),
            limit=64 * 1024 * 1024,
        )
        try:
            yield RawAgent(process, stderr_path)
        finally:
            if process.returncode is None:
                assert process.stdin is not None
                process.stdin.close()
                try:
                    await asyncio.wait_for(process.wait(), 10)
                except TimeoutError:
                    process.kill()
                    await process.wait()


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_until_gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    """Poll until none of ``pids`` is alive; returns those still alive at the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if not any(alive(pid) for pid in pids):
            return []
        await asyncio.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


async def wait_for_file(path: Path, timeout: float = 30.0) -> str:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def tool_updates(notifications: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    """The tool_call / tool_call_update payloads of ``session_id``, in order."""
    return [
        n["params"]["update"]
        for n in notifications
        if n.get("method") == "session/update"
        and n["params"].get("sessionId") == session_id
        and n["params"]["update"].get("sessionUpdate") in ("tool_call", "tool_call_update")
    ]
