"""Test helpers: a real ``langgraph dev`` server, and ``langacp serve --remote`` driven over real pipes.

    with LangGraphDevServer({"agent": "/abs/path/graphs.py:graph"}) as server:
        async with serve_remote(server.url, "agent") as agent:
            sid = await agent.start()

``langgraph dev`` (``pip install "langgraph-cli[inmem]"``) runs the graphs in its own process,
in-memory, offline; it takes a few seconds to start, so start one per test session.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["LangGraphDevServer", "free_port", "serve_remote", "serve_remote_command"]

STARTUP_TIMEOUT = 90.0


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LangGraphDevServer:
    """``langgraph dev`` serving ``graphs`` (name → ``path/to/file.py:attr``) on a free port."""

    def __init__(self, graphs: Mapping[str, str], *, env: Mapping[str, str] | None = None, jobs: int = 32) -> None:
        self.graphs = dict(graphs)
        self.env = dict(env or {})
        self.jobs = jobs
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self._dir: str | None = None

    def log(self) -> str:
        """What the server logged so far."""
        if self._dir is None:
            return ""
        return (Path(self._dir) / "server.log").read_text(encoding="utf-8", errors="replace")

    def _options(self) -> list[str]:
        return ["--port", str(self.port), "--n-jobs-per-worker", str(self.jobs)]

    def start(self) -> LangGraphDevServer:
        self._dir = tempfile.mkdtemp(prefix="langacp-langgraph-")
        app = Path(self._dir) / "app"
        app.mkdir()
        (app / "langgraph.json").write_text(json.dumps({"dependencies": ["."], "graphs": self.graphs}))
        langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent)) or "langgraph"
        env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false", **self.env}
        with (Path(self._dir) / "server.log").open("wb") as log:
            self.process = subprocess.Popen(
                [langgraph, "dev", "--no-browser", "--no-reload", "--allow-blocking", *self._options()],
                cwd=app,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its workers stop with it
            )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited with {self.process.returncode}:\n{self.log()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"langgraph dev did not start within {STARTUP_TIMEOUT:.0f}s:\n{self.log()[-3000:]}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> LangGraphDevServer:
        return self.start()

    def __exit__(self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]) -> None:
        self.stop()


def serve_remote_command(url: str, graph: str, *args: str, plugins: Sequence[str] = ()) -> list[str]:
    """The command line of ``langacp serve --remote URL GRAPH`` with ``plugins`` enabled by name."""
    from langacp.testing.harness import serve_command

    return serve_command(graph, "--remote", url, *args, plugins=plugins)


@asynccontextmanager
async def serve_remote(
    url: str,
    graph: str,
    *,
    plugins: Sequence[str] = (),
    args: Sequence[str] = (),
    client: Any = None,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
) -> AsyncIterator[Any]:
    """``langacp serve --remote URL GRAPH`` in a subprocess (plugin autoload off), as a ``ServedAgent``."""
    from langacp.client import RecordingClient, spawn_agent
    from langacp.testing.harness import ServedAgent

    child_env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    child_env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    child_env.update(env or {})
    recorder = client if client is not None else RecordingClient()
    with tempfile.TemporaryDirectory(prefix="langacp-remote-test-") as tmp:
        workdir = Path(cwd) if cwd is not None else Path(tmp) / "work"
        workdir.mkdir(parents=True, exist_ok=True)
        stderr_path = Path(tmp) / "agent.stderr"
        with stderr_path.open("w") as stderr:
            command = serve_remote_command(url, graph, *args, plugins=plugins)
            async with spawn_agent(command, recorder, env=child_env, stderr=stderr) as (conn, process):
                yield ServedAgent(conn, process, recorder, stderr_path, workdir)
