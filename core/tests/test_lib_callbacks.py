"""``ACPCallbackHandler`` on a graph not built with ``create_agent``, core only, over real pipes.

A hand-written SDK agent serving a hand-built ``StateGraph`` (model node + ``ToolNode``) must
send what ``langacp serve langacp.testing.agent:agent`` sends for the same prompts: the same
model, the same tools, the same core mappers. Both run in this process: the hand-written one
as its script runs it (the SDK's ``run_agent``), over OS pipes to the SDK's client.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from acp import RequestError, run_agent, text_block
from acp.client.connection import ClientSideConnection
from core_support import FIXTURES

from langacp.client import RecordingClient
from langacp.testing.harness import serve_in_process

PROMPTS = [
    "think it over",
    'tool add {"a": 2, "b": 3}',
    "fail",  # the tool raises: a failed call, the model goes on
    "long 40",
    "tools 3",  # three model calls, one tool call each
    "error the model failed",
]


async def _play(conn: Any, client: RecordingClient, cwd: Path) -> tuple[str, list[str], list[list[dict[str, Any]]]]:
    await conn.initialize(protocol_version=1)
    sid = (await conn.new_session(cwd=str(cwd))).session_id
    answers, steps = [], []
    for text in PROMPTS:
        start = len(client.updates)
        try:
            answers.append(str((await conn.prompt(session_id=sid, prompt=[text_block(text)])).stop_reason))
        except RequestError as exc:
            answers.append(f"error {exc.code}")
        steps.append(_joined([u for s, u in client.updates[start:] if s == sid]))
    return sid, answers, steps


async def _pipe() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """An OS pipe as asyncio streams: (its reading end, its writing end)."""
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), os.fdopen(write_fd, "wb", 0)
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


@asynccontextmanager
async def _library_agent(client: RecordingClient) -> AsyncIterator[ClientSideConnection]:
    """``fixtures/lib_graph_agent.py``'s agent served as its script serves it (``run_agent``), over OS pipes."""
    spec = importlib.util.spec_from_file_location("lib_graph_agent", FIXTURES / "lib_graph_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    agent_in, client_out = await _pipe()
    client_in, agent_out = await _pipe()
    serving = asyncio.ensure_future(run_agent(module.GraphAgent(), agent_out, agent_in))
    conn = ClientSideConnection(cast(Any, client), client_out, client_in)
    try:
        yield conn
    finally:
        await conn.close()
        client_out.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(serving, 5)
        agent_out.close()


def _joined(updates: list[Any]) -> list[dict[str, Any]]:
    """Updates as JSON, consecutive text chunks of one kind joined (chunking depends on timing), each
    chunk's ``messageId`` (a run's own) replaced by its order of appearance in the turn."""
    out: list[dict[str, Any]] = []
    ids: dict[str, str] = {}
    for update in updates:
        data = json.loads(update.model_dump_json(exclude_none=True, by_alias=True))
        kind = data["sessionUpdate"]
        if kind.endswith("_chunk"):
            data["messageId"] = ids.setdefault(data["messageId"], f"message {len(ids)}")
        if kind in ("agent_message_chunk", "agent_thought_chunk") and out and out[-1]["sessionUpdate"] == kind:
            out[-1]["content"]["text"] += data["content"]["text"]
            continue
        out.append(data)
    return out


async def test_callback_handler_reports_a_hand_built_graph_as_the_server_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server_client, library_client = RecordingClient(), RecordingClient()
    async with serve_in_process("langacp.testing.agent:agent", client=server_client, cwd=tmp_path) as server:
        _sid, server_answers, server_steps = await _play(server.conn, server_client, tmp_path)
    monkeypatch.setenv("LANGACP_DISABLE_PLUGIN_AUTOLOAD", "1")  # the core's plugins only, as serve_in_process has
    async with _library_agent(library_client) as conn:
        _sid, library_answers, library_steps = await _play(conn, library_client, tmp_path)

    assert library_answers == server_answers == ["end_turn"] * 5 + ["error -32603"]
    assert library_steps == server_steps
    think, add, fail, long, tools, _error = library_steps
    assert [u["sessionUpdate"] for u in think] == ["agent_thought_chunk", "agent_message_chunk"]
    # Three updates per streamed call: announced from its first chunk (no arguments yet), the
    # arguments with in_progress, the result.
    assert [(u["sessionUpdate"], u.get("status")) for u in add] == [
        ("tool_call", "pending"),
        ("tool_call_update", "in_progress"),
        ("tool_call_update", "completed"),
        ("agent_message_chunk", None),
    ]
    assert "rawInput" not in add[0] and add[1]["rawInput"] == {"a": 2, "b": 3} and add[2]["rawOutput"] == "5"
    assert (add[1]["title"], add[1]["kind"]) == ("add", "other")
    assert any(u.get("status") == "failed" and "boom" in json.dumps(u) for u in fail)
    assert long[-1]["content"]["text"] == "".join(f"w{i} " for i in range(40))
    assert [u.get("status") for u in tools] == ["pending", "in_progress", "completed"] * 3 + [None]
