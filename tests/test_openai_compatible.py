"""The default agent on an OpenAI-compatible endpoint (``OPENAI_BASE_URL``: LiteLLM, OpenRouter, vLLM, Ollama).

A local server speaks the Chat Completions stream as those gateways do: it sends token usage
only when the request asks for it (``stream_options.include_usage``), as OpenAI does. The agent
is ``langacp serve`` with langacp-usage and ``LANGACP_MODEL=openai:…`` over real pipes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from acp import RequestError

from langacp.default_agent import DEFAULT_TARGET
from langacp.testing.harness import serve

pytest.importorskip("langchain_openai")

USAGE = {"prompt_tokens": 1234, "completion_tokens": 5, "total_tokens": 1239}


class FakeOpenAI(ThreadingHTTPServer):
    """``POST /v1/chat/completions``: a streamed "Hello there", usage when asked; ``fail``: an HTTP 400."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.fail = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        if self.server.fail:
            error = json.dumps({"error": {"message": "the model is overloaded", "type": "invalid_request_error"}})
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(error)))
            self.end_headers()
            self.wfile.write(error.encode())
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": body["model"]}
        chunks = [
            {"index": 0, "delta": {"role": "assistant", "content": "Hello"}, "finish_reason": None},
            {"index": 0, "delta": {"content": " there"}, "finish_reason": None},
            {"index": 0, "delta": {}, "finish_reason": "stop"},
        ]
        for choice in chunks:
            self._event({**base, "choices": [choice]})
        if (body.get("stream_options") or {}).get("include_usage"):
            self._event({**base, "choices": [], "usage": USAGE})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, data: dict[str, Any]) -> None:
        self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())


@pytest.fixture
def gateway() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _env(gateway: FakeOpenAI, **extra: str) -> dict[str, str]:
    return {
        "LANGACP_MODEL": "openai:gpt-4.1-mini",
        "OPENAI_BASE_URL": gateway.url,
        "OPENAI_API_KEY": "sk-test",
        **extra,
    }


async def test_usage_is_asked_for_and_reported_behind_a_base_url(gateway: FakeOpenAI) -> None:
    async with serve(DEFAULT_TARGET, plugins=["usage"], env=_env(gateway)) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "hi") == "end_turn"
        assert agent.client.text(sid) == "Hello there"
        usage = agent.client.of(sid, "usage_update")
    assert gateway.requests[-1]["stream_options"] == {"include_usage": True}
    assert usage and usage[-1].used in (USAGE["total_tokens"], USAGE["prompt_tokens"]), usage


async def test_stream_usage_can_be_turned_off(gateway: FakeOpenAI) -> None:
    async with serve(DEFAULT_TARGET, plugins=["usage"], env=_env(gateway, LANGACP_STREAM_USAGE="0")) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "hi") == "end_turn"
        assert agent.client.text(sid) == "Hello there"
    assert "stream_options" not in gateway.requests[-1]


@pytest.mark.parametrize("level", ["info", "debug"])
async def test_a_provider_error_is_one_line_with_the_traceback_at_debug(gateway: FakeOpenAI, level: str) -> None:
    gateway.fail = True
    async with serve(DEFAULT_TARGET, env=_env(gateway), args=["--log-level", level]) as agent:
        sid = await agent.start()
        with pytest.raises(RequestError) as raised:
            await agent.prompt(sid, "hi")
        stderr = agent.stderr()
    assert "overloaded" in json.dumps(raised.value.data)  # the client is told why
    errors = [line for line in stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "overloaded" in errors[0], stderr
    assert ("Traceback" in stderr) == (level == "debug"), stderr
