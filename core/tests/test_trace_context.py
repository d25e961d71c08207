"""The client's W3C trace context (``_meta.traceparent`` / ``tracestate`` on ``session/prompt``)
parents the turn's LangSmith run, over real pipes with LangSmith pointed at a local collector;
with tracing not configured nothing is sent; malformed values are ignored, never fatal."""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from core_support import RawAgent

from langacp.tracing import trace_parent

StartRaw = Callable[..., AbstractAsyncContextManager[RawAgent]]

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{SPAN_ID}-01"


class Collector:
    """A local stand-in for the LangSmith API: answers everything, keeps every request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                collector.requests.append((self.command, self.path, dict(self.headers), body))
                reply = b"{}"
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            do_GET = do_POST = do_PATCH = do_PUT = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def runs(self) -> list[dict[str, Any]]:
        """Every run posted (multipart ``post.<id>`` parts, or batch JSON)."""
        found: list[dict[str, Any]] = []
        for method, _path, headers, body in self.requests:
            if method != "POST" or not body:
                continue
            ctype = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
            if ctype.startswith("multipart/"):
                message = email.message_from_bytes(
                    b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body, policy=email.policy.HTTP
                )
                fields: dict[str, dict[str, Any]] = {}
                for part in message.iter_parts():  # type: ignore[attr-defined]
                    name = str(part.get_param("name", header="content-disposition") or "")
                    kind, _, rest = name.partition(".")
                    if kind not in ("post", "patch"):
                        continue
                    run_id, _, field = rest.partition(".")
                    run = fields.setdefault(f"{kind}.{run_id}", {})
                    value = json.loads(part.get_payload(decode=True))
                    if field:
                        run[field] = value  # post.<id>.extra, .inputs, ...: a field sent apart
                    else:
                        run.update(value)
                found.extend(fields.values())
            elif ctype.startswith("application/json"):
                data = json.loads(body)
                if isinstance(data, dict):
                    for key in ("post", "patch"):
                        found.extend(r for r in data.get(key) or [] if isinstance(r, dict))
        return found


@contextmanager
def collector() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()


def langsmith_env(url: str, *, tracing: bool) -> dict[str, str]:
    env = {
        "LANGSMITH_ENDPOINT": url,
        "LANGSMITH_API_KEY": "lsv2-test-key",
        "LANGSMITH_PROJECT": "langacp-test",
        "LANGSMITH_DISABLE_RUN_COMPRESSION": "true",
        "LANGSMITH_TRACING": "true" if tracing else "false",
        "LANGCHAIN_TRACING_V2": "",
        "LANGCHAIN_TRACING": "",
    }
    return env


async def one_turn(agent: RawAgent, tmp_path: Path, meta: dict[str, Any]) -> None:
    init = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert "result" in init
    session = (await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))["result"]["sessionId"]
    params = {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}], "_meta": meta}
    reply = await agent.request(2, "session/prompt", params)
    assert reply["result"]["stopReason"] == "end_turn"
    # The agent keeps serving after whatever the _meta held.
    again = await agent.request(3, "session/prompt", {**params, "_meta": {}})
    assert again["result"]["stopReason"] == "end_turn"


async def finish(agent: RawAgent) -> None:
    """Close stdin and wait for the agent to exit (LangSmith sends what it has left on the way out)."""
    process = agent.process
    assert isinstance(process, asyncio.subprocess.Process) and process.stdin is not None
    process.stdin.close()
    await asyncio.wait_for(process.wait(), 30)


async def test_traceparent_parents_the_turns_langsmith_run(start_raw: StartRaw, tmp_path: Path) -> None:
    with collector() as server:
        env = langsmith_env(server.url, tracing=True)
        async with start_raw(env=env, subprocess=True) as agent:
            await one_turn(agent, tmp_path, {"traceparent": TRACEPARENT, "tracestate": "vendor=abc"})
            await finish(agent)
        runs = server.runs()
    trace = str(uuid.UUID(hex=TRACE_ID))
    parent = str(uuid.UUID(hex=SPAN_ID + "0" * 16))
    children = [r for r in runs if r.get("parent_run_id") == parent]
    assert children, f"no run parented by the traceparent among {len(runs)} runs"
    # Every run of that turn is in the client's trace; the other turn (no _meta) is a trace of its own.
    in_trace = [r for r in runs if r.get("trace_id") == trace]
    assert {r["id"] for r in children} <= {r["id"] for r in in_trace}
    assert len(in_trace) < len({r["id"] for r in runs if "id" in r})
    root = children[0]
    assert root["dotted_order"].startswith(f"19700101T000000000000Z{trace}.19700101T000000000000Z{parent}.")
    metadata = (root.get("extra") or {}).get("metadata") or {}
    assert metadata.get("traceparent") == TRACEPARENT
    assert metadata.get("tracestate") == "vendor=abc"


async def test_no_tracing_configured_nothing_is_sent(start_raw: StartRaw, tmp_path: Path) -> None:
    with collector() as server:
        env = langsmith_env(server.url, tracing=False)
        async with start_raw(env=env, subprocess=True) as agent:
            await one_turn(agent, tmp_path, {"traceparent": TRACEPARENT, "tracestate": "vendor=abc"})
            await finish(agent)
        assert server.requests == []


MALFORMED: list[dict[str, Any]] = [
    {"traceparent": "00-" + TRACE_ID.upper() + "-" + SPAN_ID + "-01"},
    {"traceparent": 42, "tracestate": ["x"]},
    {"traceparent": "00-" + "0" * 32 + "-" + SPAN_ID + "-01"},
    {"traceparent": "x" * 100_000},
    {"traceparent": TRACEPARENT + "-extra"},
]


async def test_malformed_traceparent_is_ignored(start_raw: StartRaw, tmp_path: Path) -> None:
    with collector() as server:
        env = langsmith_env(server.url, tracing=True)
        async with start_raw(env=env, subprocess=True) as agent:
            await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            reply = await agent.request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []})
            session = reply["result"]["sessionId"]
            for n, meta in enumerate(MALFORMED, start=2):
                params = {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}], "_meta": meta}
                answer = await agent.request(n, "session/prompt", params)
                assert answer["result"]["stopReason"] == "end_turn", meta
            await finish(agent)
        runs = server.runs()
    assert runs, "tracing is on: the turns are still traced"
    assert not [r for r in runs if r.get("trace_id") == str(uuid.UUID(hex=TRACE_ID))]
    assert not [r for r in runs if (r.get("parent_run_id") or "").startswith(SPAN_ID[:8])]


def test_trace_parent_reads_w3c_strictly() -> None:
    good = trace_parent(TRACEPARENT, " vendor=abc ")
    assert good is not None and (good.trace_id, good.span_id, good.flags) == (TRACE_ID, SPAN_ID, "01")
    assert good.tracestate == "vendor=abc"
    assert trace_parent(TRACEPARENT, "bad\nstate") == trace_parent(TRACEPARENT)  # the state dropped only
    future = trace_parent(f"01-{TRACE_ID}-{SPAN_ID}-01-more")  # a later version may add fields
    assert future is not None and future.traceparent == TRACEPARENT
    for bad in (
        None,
        "",
        f"ff-{TRACE_ID}-{SPAN_ID}-01",
        f"00-{TRACE_ID}-{'0' * 16}-01",
        f"00-{TRACE_ID}-{SPAN_ID}-1",
        f"00-{TRACE_ID[:-1]}g-{SPAN_ID}-01",
        f"00_{TRACE_ID}_{SPAN_ID}_01",
        f" {TRACEPARENT}",
        TRACEPARENT + "\n",
    ):
        assert trace_parent(bad) is None, bad


def test_joined_sets_the_opentelemetry_parent_and_enables_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the turn: OpenTelemetry's current span context is the client's; LangSmith tracing stays off."""
    otel_trace = pytest.importorskip("opentelemetry.trace")
    from langsmith.utils import tracing_is_enabled

    from langacp.tracing import joined

    for name in ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
        monkeypatch.delenv(name, raising=False)
    parent = trace_parent(TRACEPARENT, "vendor=abc")
    with joined(parent):
        context = otel_trace.get_current_span().get_span_context()
        assert (context.trace_id, context.span_id) == (int(TRACE_ID, 16), int(SPAN_ID, 16))
        assert context.is_remote and context.trace_state.get("vendor") == "abc"
        assert not tracing_is_enabled()  # a parent does not switch LangSmith tracing on
    assert otel_trace.get_current_span().get_span_context().trace_id == 0  # restored after the turn
    with joined(None):
        assert otel_trace.get_current_span().get_span_context().trace_id == 0
