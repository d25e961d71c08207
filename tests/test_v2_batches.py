"""JSON-RPC batches (JSON-RPC 2.0 §6) on an ACP v2 connection, over the agent's real pipes.

The v2 draft the acp-tck kit pins (2.0.0-alpha.5) takes batches (ACP-BATCH-201..205,
ACP-JSONRPC-001/003/005): ``[]`` is one -32600, a batch of notifications gets no answer, each
invalid entry its own -32600, a batch of requests one array line of their responses. A v1
connection answers an array with one -32600, as it always did. Every message the agent sends
(each entry of an array) is checked against the official ``schema/v2/schema.json`` (npm,
installed by the test).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from acp_schema import Schema, served_process
from v2_client import RESPONSES, Watched

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"
MAX_BATCH = 100  # langacp.protocol.v2.batches.MAX_BATCH, as docs/protocol.md states it


class Lines(Watched):
    """The agent's stdout line by line (an array line stays one list); writes raw lines to its stdin."""

    def __init__(self, process: asyncio.subprocess.Process, schema: Schema) -> None:
        super().__init__()
        self.process = process
        self.schema = schema
        self.lines: list[Any] = []
        self.errors: list[str] = []
        self.validating = True
        """Check what the agent sends against the v2 schema (not on a v1 connection)."""
        self._asked: dict[Any, str] = {}
        self._seen = 0
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def send_raw(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        await self.process.stdin.drain()

    async def send(self, message: Any) -> None:
        """A message or a batch (a list); the methods asked are remembered to check their responses."""
        for entry in message if isinstance(message, list) else [message]:
            if isinstance(entry, dict) and "id" in entry and isinstance(entry.get("method"), str):
                self._asked[json.dumps(entry["id"])] = entry["method"]
        await self.send_raw(json.dumps(message))

    async def next_line(self, timeout: float = 30.0) -> Any:
        """The next line the agent writes that is not a notification or a request of its own."""

        async def waiting() -> Any:
            while True:
                while self._seen < len(self.lines):
                    line = self.lines[self._seen]
                    self._seen += 1
                    if not (isinstance(line, dict) and "method" in line):
                        return line
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(waiting(), timeout)

    async def call(self, request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        reply = await self.next_line()
        assert isinstance(reply, dict) and reply.get("id") == request_id and "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result

    def updates(self, session_id: str) -> list[dict[str, Any]]:
        return [
            line["params"]["update"]
            for line in self.lines
            if isinstance(line, dict)
            and line.get("method") == "session/update"
            and line["params"]["sessionId"] == session_id
        ]

    def _check(self, message: Any) -> None:
        if not self.validating:
            return
        if not isinstance(message, dict):
            self.errors.append(f"not a JSON-RPC message: {message!r}")
        elif "method" in message:
            self._validate("AgentNotification" if "id" not in message else "AgentRequest", message)
        elif "error" in message:
            self._validate("Error", message["error"])
        else:
            method = self._asked.get(json.dumps(message.get("id")), "")
            if method in RESPONSES:
                self._validate(RESPONSES[method], message["result"])

    def _validate(self, name: str, value: Any) -> None:
        errors = self.schema.errors(name, value)
        if errors:
            self.errors.append(f"{json.dumps(value)[:300]} is no {name}: {errors[:2]}")

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            parsed = json.loads(line)
            for message in parsed if isinstance(parsed, list) else [parsed]:
                self._check(message)
            self.lines.append(parsed)
            self._changed.set()
        self._changed.set()


@asynccontextmanager
async def serving(tmp_path: Path, schema: Schema, version: int = 2) -> AsyncIterator[Lines]:
    """``langacp serve`` over real pipes, initialized with ``version`` (0: not initialized)."""
    async with served_process(TARGET, tmp_path, args=["--store", "memory"]) as process:
        agent = Lines(process, schema)
        agent.validating = version >= 2
        try:
            params: dict[str, Any] = {"protocolVersion": version}
            if version >= 2:
                params |= {"info": {"name": "batch-test", "version": "1"}, "capabilities": {}}
            if version:
                assert (await agent.call(0, "initialize", params))["protocolVersion"] == version
            yield agent
            assert process.returncode is None, "the agent is still serving"
            assert not agent.errors, agent.errors[:5]
        finally:
            agent._reader.cancel()


def request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}


def invalid_request(reply: Any, request_id: Any = None) -> bool:
    return isinstance(reply, dict) and reply.get("id") == request_id and reply.get("error", {}).get("code") == -32600


async def still_serving(agent: Lines, request_id: int = 99) -> None:
    assert "sessions" in await agent.call(request_id, "session/list", {})


async def test_v2_empty_batch_is_one_invalid_request(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        await agent.send_raw("[]")
        assert invalid_request(await agent.next_line())
        await still_serving(agent)


async def test_v2_batch_of_notifications_gets_no_answer(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        await agent.send([{"jsonrpc": "2.0", "method": "_test/notify"}, {"jsonrpc": "2.0", "method": "_test/again"}])
        await agent.send(request(5, "session/list"))
        reply = await agent.next_line()
        assert isinstance(reply, dict) and reply["id"] == 5, f"the batch was answered: {agent.lines}"


async def test_v2_invalid_entries_get_an_invalid_request_each(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        await agent.send_raw("[17, true, null]")
        answer = await agent.next_line()
        assert isinstance(answer, list) and len(answer) == 3, answer
        assert all(invalid_request(reply) for reply in answer), answer
        await still_serving(agent)


async def test_v2_batch_of_requests_is_answered_with_one_array(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        await agent.send([request("a", "session/list"), request("b", "session/list")])
        answer = await agent.next_line()
        assert isinstance(answer, list) and [reply["id"] for reply in answer] == ["a", "b"], answer
        assert all("sessions" in reply["result"] for reply in answer)


async def test_v2_mixed_batch_answers_the_requests_only(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        cwd = str(tmp_path)
        await agent.send(
            [
                request(1, "session/new", {"cwd": cwd}),
                {"jsonrpc": "2.0", "method": "_test/notify"},
                {"jsonrpc": "2.0", "id": 2, "method": 12},  # invalid: a method that is not a string
                request(3, "no/such/method"),
                {"jsonrpc": "2.0", "id": "x", "result": {}},  # a response to nothing we asked: dropped
                request(4, "session/list"),
            ]
        )
        answer = await agent.next_line()
        assert isinstance(answer, list), answer
        assert [reply["id"] for reply in answer] == [1, 2, 3, 4], "one response per request, in their order"
        assert "sessionId" in answer[0]["result"]
        assert invalid_request(answer[1], 2)
        assert answer[2]["error"]["code"] == -32601
        assert [s["sessionId"] for s in answer[3]["result"]["sessions"]] in ([], [answer[0]["result"]["sessionId"]])


async def test_v2_batch_that_is_not_json_is_one_parse_error(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        await agent.send_raw('[{"jsonrpc": "2.0", "id": 1, "method": ')
        reply = await agent.next_line()
        assert isinstance(reply, dict) and reply["id"] is None and reply["error"]["code"] == -32700
        await agent.send_raw('[{"jsonrpc": "2.0", "id": 1, "method": "session/list"}] trailing')
        reply = await agent.next_line()
        assert isinstance(reply, dict) and reply["error"]["code"] == -32700
        await still_serving(agent)


async def test_v2_batch_too_large_is_refused_whole(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        await agent.send([request(i, "session/list") for i in range(MAX_BATCH)])
        answer = await agent.next_line()
        assert isinstance(answer, list) and len(answer) == MAX_BATCH, "the largest batch is served"
        # 2 million entries (~20 MB): refused after the first MAX_BATCH + 1 are read, not held whole
        await agent.send_raw("[" + ",".join(["{}"] * 2_000_000) + "]")
        reply = await agent.next_line()
        assert invalid_request(reply), reply
        assert reply["error"]["data"]["maxBatch"] == MAX_BATCH
        await still_serving(agent)


async def test_v2_batch_with_a_repeated_id_refuses_the_repeat(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        await agent.send([request(7, "session/list"), request(7, "session/list"), request("7", "session/list")])
        answer = await agent.next_line()
        assert isinstance(answer, list) and [reply["id"] for reply in answer] == [7, 7, "7"], answer
        assert "result" in answer[0] and invalid_request(answer[1], 7) and "result" in answer[2]


async def test_v2_slow_request_holds_only_its_own_batch(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        slow = (await agent.call(1, "session/new", {"cwd": str(tmp_path)}))["sessionId"]
        other = (await agent.call(2, "session/new", {"cwd": str(tmp_path)}))["sessionId"]
        prompt: Callable[[str, str], dict[str, Any]] = lambda sid, text: {  # noqa: E731
            "sessionId": sid,
            "prompt": [{"type": "text", "text": text}],
        }
        assert "messageId" in await agent.call(3, "session/prompt", prompt(slow, "slow 30"))
        await agent.wait_for(lambda: any(u.get("status") == "in_progress" for u in agent.updates(slow)))
        # The batch's prompt is inserted only after the running turn: its answer waits for it.
        await agent.send([request(10, "session/prompt", prompt(slow, "echo later")), request(11, "session/list")])
        reply = await agent.call(12, "session/prompt", prompt(other, "echo meanwhile"))
        assert "messageId" in reply, "another session's answer is not held by the batch"
        await agent.wait_for(lambda: any(u.get("stopReason") == "end_turn" for u in agent.updates(other)))
        assert not any(isinstance(line, list) for line in agent.lines), "the batch is still waiting"
        await agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": slow}})
        answer = await agent.next_line()
        assert isinstance(answer, list) and [reply["id"] for reply in answer] == [10, 11], answer
        assert answer[0]["error"]["code"] == -32800, "a prompt not yet inserted is cancelled with the turn"
        assert "sessions" in answer[1]["result"]


async def test_v2_cancel_request_reaches_a_batched_request(v2_schema: Schema, tmp_path: Path) -> None:
    async with serving(tmp_path, v2_schema) as agent:
        sid = (await agent.call(1, "session/new", {"cwd": str(tmp_path)}))["sessionId"]
        text = {"sessionId": sid, "prompt": [{"type": "text", "text": "slow 30"}]}
        assert "messageId" in await agent.call(2, "session/prompt", text)
        await agent.wait_for(lambda: any(u.get("status") == "in_progress" for u in agent.updates(sid)))
        await agent.send([request("held", "session/prompt", {**text, "prompt": [{"type": "text", "text": "hi"}]})])
        await agent.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "held"}})
        answer = await agent.next_line()
        assert isinstance(answer, list) and answer[0]["id"] == "held" and answer[0]["error"]["code"] == -32800
        assert not any(u.get("stopReason") == "cancelled" for u in agent.updates(sid)), "the running turn goes on"
        await agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})


@pytest.mark.parametrize("version", [0, 1])
async def test_v1_array_is_one_invalid_request_as_before(v2_schema: Schema, tmp_path: Path, version: int) -> None:
    async with serving(tmp_path, v2_schema, version=version) as agent:  # v1, or not yet initialized
        for line in ("[]", json.dumps([request(1, "session/list")]), '[{"jsonrpc": "2.0", "method": "_x"}]'):
            await agent.send_raw(line)
            reply = await agent.next_line()
            assert invalid_request(reply), (line, reply)
            assert reply["error"]["data"] == {"details": "expected a JSON object"}
        await still_serving(agent)
