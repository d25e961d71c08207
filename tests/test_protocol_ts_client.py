"""The TypeScript SDK 2.4.0 client (npm ``@agentclientprotocol/sdk``, tests/fixtures/ts_updates_client/updates.mjs)
receives each newer v1 update langacp sends (``notice``, ``compaction_update``, ``compaction_summary_chunk``,
``messageId`` on chunks, ``name`` on tool calls) without a validation error, and a client without the
capabilities gets none of the gated ones."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from langacp.testing.harness import serve_command
from test_protocol_v1_updates import GATED, MODEL_SUMMARIZING_AGENT, SUMMARIZING_AGENT, SUMMARY

pytestmark = pytest.mark.asyncio


async def run(
    ts_updates_client: list[str], tmp_path: Path, capabilities: dict[str, Any], source: str = SUMMARIZING_AGENT
) -> dict[str, Any]:
    (tmp_path / "summarizing_agent.py").write_text(source)
    (tmp_path / ".langacp.toml").write_text("this is = = not toml\n")
    agent = serve_command("summarizing_agent:agent")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env.update({"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1", "XDG_DATA_HOME": str(tmp_path / "data")})
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    prompts = ['tool add {"a": 1, "b": 2}', 'tool add {"a": 3, "b": 4}', "think"]
    process = await asyncio.create_subprocess_exec(
        *ts_updates_client,
        json.dumps(agent),
        json.dumps(prompts),
        json.dumps(capabilities),
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 180)
    result: dict[str, Any] = json.loads(out)
    assert result["stopReasons"] == ["end_turn"] * 3, result
    return result


async def test_protocol_ts_client_takes_every_new_update(ts_updates_client: list[str], tmp_path: Path) -> None:
    result = await run(
        ts_updates_client, tmp_path, {"session": {"notices": {}, "compaction": {}}}, MODEL_SUMMARIZING_AGENT
    )
    assert result["errors"] == []
    updates = result["updates"]
    kinds = {u["sessionUpdate"] for u in updates}
    assert {"notice", "compaction_update", "compaction_summary_chunk"} <= kinds
    compactions = [u for u in updates if u["sessionUpdate"] == "compaction_update"]
    assert [c["status"] for c in compactions] == ["in_progress", "completed"]
    assert compactions[1]["summary"] == [{"type": "text", "text": SUMMARY}]
    assert {u["name"] for u in updates if u["sessionUpdate"] == "tool_call"} == {"add"}
    chunks = [
        u for u in updates if u["sessionUpdate"].endswith("_chunk") and not u["sessionUpdate"].startswith("compaction")
    ]
    assert chunks and all(u.get("messageId") for u in chunks)


async def test_protocol_ts_client_without_capabilities_gets_none(ts_updates_client: list[str], tmp_path: Path) -> None:
    result = await run(ts_updates_client, tmp_path, {})
    assert result["errors"] == []
    assert not [u for u in result["updates"] if u["sessionUpdate"] in GATED]
