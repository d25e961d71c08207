"""Raw JSON-RPC lines the SDK would refuse to send: each gets the right answer, the agent goes on."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path

from robustness_support import agent_env, raw_agent, serve_args


async def test_envelopes_get_invalid_request_with_their_id(tmp_path: Path) -> None:
    async with raw_agent(tmp_path) as agent:
        await agent.send({"jsonrpc": "2.0", "id": 7})  # an id and nothing else
        reply = await agent.recv()
        assert reply["id"] == 7 and reply["error"]["code"] == -32600
        await agent.send({"jsonrpc": "1.0", "id": 8, "method": "initialize", "params": {"protocolVersion": 1}})
        reply = await agent.recv()
        assert reply["id"] == 8 and reply["error"]["code"] == -32600 and "2.0" in reply["error"]["data"]["details"]
        await agent.send({"id": "s", "method": "initialize", "params": {"protocolVersion": 1}})  # no jsonrpc
        reply = await agent.recv()
        assert reply["id"] == "s" and reply["error"]["code"] == -32600
        await agent.send({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": 3})
        reply = await agent.recv()
        assert reply["id"] == 9 and reply["error"]["code"] == -32600
        ok = await agent.request("initialize", {"protocolVersion": 1})
        assert ok["result"]["protocolVersion"] == 1


async def test_nan_and_infinity_are_parse_errors_and_never_echoed(tmp_path: Path) -> None:
    async with raw_agent(tmp_path) as agent:
        for constant in (b"NaN", b"Infinity", b"-Infinity"):
            await agent.send_raw(
                b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"x": ' + constant + b"}}\n"
            )
            assert agent.process.stdout is not None
            line = await asyncio.wait_for(agent.process.stdout.readline(), 30)
            reply = json.loads(line, parse_constant=lambda c: (_ for _ in ()).throw(AssertionError(c)))
            assert reply["error"]["code"] == -32700 and reply["id"] is None


async def test_deep_nesting_is_refused_and_never_kills_the_agent(tmp_path: Path) -> None:
    async with raw_agent(tmp_path) as agent:
        # Parseable but deeper than the limit (100): refused with the request's id.
        deep = "[" * 150 + "]" * 150
        await agent.send_raw(
            f'{{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {{"x": {deep}}}}}\n'.encode()
        )
        reply = await agent.recv()
        assert reply["id"] == 3 and reply["error"]["code"] == -32600
        assert reply["error"]["data"]["maxDepth"] == 100
        # Deeper than Python's recursion limit: RecursionError in the parser, caught.
        for depth in (1_000, 100_000):
            await agent.send_raw(
                b'{"jsonrpc": "2.0", "id": 4, "method": "x", "params": ' + b"[" * depth + b"]" * depth + b"}\n"
            )
            reply = await agent.recv()
            assert reply["error"]["code"] == -32600 and "nested deeper" in reply["error"]["data"]["details"]
        # Just under the limit passes the transport (and gets the method's own answer).
        ok = await agent.request("initialize", {"protocolVersion": 1, "_meta": {"x": json.loads("[" * 90 + "]" * 90)}})
        assert ok["result"]["protocolVersion"] == 1
        assert agent.process.returncode is None


async def test_a_message_over_the_size_limit_is_refused_and_the_next_one_served(tmp_path: Path) -> None:
    async with raw_agent(tmp_path, env={"LANGACP_MAX_MESSAGE_BYTES": "100000"}) as agent:
        big = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"x": "a" * 200_000}})
        await agent.send_raw(big.encode() + b"\n")
        reply = await agent.recv()
        assert reply["error"]["code"] == -32600 and reply["error"]["data"]["maxBytes"] == 100_000
        ok = await agent.request("initialize", {"protocolVersion": 1})
        assert ok["result"]["protocolVersion"] == 1


async def test_a_cancel_in_the_same_write_as_its_prompt_cancels_it(tmp_path: Path) -> None:
    async with raw_agent(tmp_path) as agent:
        sid = await agent.start(str(tmp_path))
        for attempt in range(3):
            msg_id = 100 + attempt
            cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}}
            await agent.send(agent.prompt_message(msg_id, sid, "slow 30"), cancel)
            reply = await agent.reply_to(msg_id, timeout=20)
            assert reply["result"]["stopReason"] == "cancelled", reply
        # A cancel that arrives when nothing runs does not cancel the next prompt.
        await agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        reply = await agent.prompt(sid, "echo still here")
        assert reply["result"]["stopReason"] == "end_turn"


async def test_stdout_is_reserved_for_the_protocol(tmp_path: Path) -> None:
    """A target printing at import and a tool printing while it runs: both land on stderr."""
    (tmp_path / "printing_target.py").write_text(
        "print('PRINTED AT IMPORT')\nfrom langacp.testing.agent import agent  # noqa: E402,F401\n"
    )
    async with raw_agent(tmp_path, str(tmp_path / "printing_target.py") + ":agent") as agent:
        sid = await agent.start(str(tmp_path))
        reply = await agent.prompt(sid, "tool noisy {}")  # every stdout line so far parsed as JSON
        assert reply["result"]["stopReason"] == "end_turn"
        assert "PRINTED AT IMPORT" in agent.stderr() and "NOISY TOOL OUTPUT" in agent.stderr()


def test_serve_with_stdout_redirected_to_a_regular_file(tmp_path: Path) -> None:
    """asyncio's pipe transport refuses regular files: the agent writes to them its own way."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}},
    ]
    out = tmp_path / "out.jsonl"
    with out.open("wb") as stdout:
        process = subprocess.Popen(
            serve_args(), stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE, env=agent_env(tmp_path)
        )
        assert process.stdin is not None
        process.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        process.stdin.flush()
        deadline = time.monotonic() + 90
        while len(out.read_text().splitlines()) < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        process.stdin.close()
        assert process.wait(30) == 0
    replies = {m.get("id"): m for m in map(json.loads, out.read_text().splitlines())}
    assert replies[1]["result"]["protocolVersion"] == 1
    assert "sessionId" in replies[2]["result"]


async def test_a_lone_surrogate_is_replaced_and_the_session_is_saved(tmp_path: Path) -> None:
    """``"\\ud800"`` is valid JSON but no UTF-8 encoder takes it: the store could not save the title."""
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    async with raw_agent(tmp_path, "langacp.testing.agent:agent", "--store", url, plugins=["titles"]) as agent:
        sid = await agent.start(str(tmp_path))
        reply = await agent.prompt(sid, "echo broken \ud800 pair")  # the first prompt: it titles the session
        assert reply["result"]["stopReason"] == "end_turn", reply
        assert agent.notifications[-1]["params"]["update"]["content"]["text"] == "broken \ufffd pair"
        listed = await agent.request("session/list", {})
    assert [s["title"] for s in listed["result"]["sessions"]] == ["Echo broken \ufffd pair"]
    async with raw_agent(tmp_path, "langacp.testing.agent:agent", "--store", url, name="again") as agent:
        assert "result" in await agent.request("initialize", {"protocolVersion": 1})
        loaded = await agent.request("session/load", {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []})
        assert "result" in loaded, loaded
        reply = await agent.prompt(sid, "history")
        assert agent.notifications[-1]["params"]["update"]["content"]["text"] == "echo broken \ufffd pair | history"
