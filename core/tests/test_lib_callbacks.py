"""``ACPCallbackHandler`` on a graph not built with ``create_agent``, core only, over real pipes.

A hand-written SDK agent serving a hand-built ``StateGraph`` (model node + ``ToolNode``) must
send what ``langacp serve langacp.testing.agent:agent`` sends for the same prompts: the same
model, the same tools, the same core mappers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from acp import RequestError, text_block
from core_support import FIXTURES, agent_env

from langacp.client import RecordingClient, spawn_agent
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


def _joined(updates: list[Any]) -> list[dict[str, Any]]:
    """Updates as JSON, consecutive text chunks of one kind joined (chunking depends on timing)."""
    out: list[dict[str, Any]] = []
    for update in updates:
        data = json.loads(update.model_dump_json(exclude_none=True, by_alias=True))
        kind = data["sessionUpdate"]
        if kind in ("agent_message_chunk", "agent_thought_chunk") and out and out[-1]["sessionUpdate"] == kind:
            out[-1]["content"]["text"] += data["content"]["text"]
            continue
        out.append(data)
    return out


async def test_callback_handler_reports_a_hand_built_graph_as_the_server_does(tmp_path: Path) -> None:
    server_client, library_client = RecordingClient(), RecordingClient()
    async with serve_in_process("langacp.testing.agent:agent", client=server_client, cwd=tmp_path) as server:
        _sid, server_answers, server_steps = await _play(server.conn, server_client, tmp_path)
    command = [sys.executable, str(FIXTURES / "lib_graph_agent.py")]
    with (tmp_path / "agent.stderr").open("w") as stderr:
        async with spawn_agent(command, library_client, env=agent_env(), stderr=stderr) as (conn, _process):
            _sid, library_answers, library_steps = await _play(conn, library_client, tmp_path)

    assert library_answers == server_answers == ["end_turn"] * 5 + ["error -32603"]
    assert library_steps == server_steps
    think, add, fail, long, tools, _error = library_steps
    assert [u["sessionUpdate"] for u in think] == ["agent_thought_chunk", "agent_message_chunk"]
    assert [u.get("status") for u in add[:4]] == ["pending", None, "in_progress", "completed"]
    assert add[1]["rawInput"] == {"a": 2, "b": 3} and add[3]["rawOutput"] == "5"
    assert any(u.get("status") == "failed" and "boom" in json.dumps(u) for u in fail)
    assert long[-1]["content"]["text"] == "".join(f"w{i} " for i in range(40))
    assert len([u for u in tools if u.get("status") == "completed"]) == 3
