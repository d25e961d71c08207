"""The TypeScript SDK 2.4.0 client on its unstable entry point (npm ``@agentclientprotocol/sdk/unstable``,
tests/fixtures/ts_updates_client/updates.mjs) receives each unstable update langacp sends (``plan_update``,
``plan_removed``, ``subagent_update``, ``session_message``, ``session_message_chunk``) without a validation
error; a client without the capabilities is sent none of them."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from langacp.testing.harness import serve_command
from test_protocol_unstable_subagents import NEW_KINDS, SUB_TASK, SUBAGENT_AGENT, delegate

pytestmark = pytest.mark.asyncio

PROMPTS = [
    "tool update_plan " + json.dumps({"entries": [{"content": "Delegate", "status": "in_progress"}]}),
    "tool update_plan " + json.dumps({"entries": [{"content": "Check", "status": "pending"}], "plan_id": "check"}),
    "tool update_plan " + json.dumps({"entries": [], "plan_id": "check"}),
    delegate("helper", SUB_TASK),
    delegate("task", SUB_TASK),
]
UNSTABLE = NEW_KINDS | {"plan_update", "plan_removed"}


async def run(ts_updates_client: list[str], tmp_path: Path, capabilities: dict[str, Any]) -> dict[str, Any]:
    (tmp_path / "subagent_agent.py").write_text(SUBAGENT_AGENT)
    agent = serve_command("subagent_agent:agent", plugins=["plans"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env.update({"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1", "XDG_DATA_HOME": str(tmp_path / "data")})
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    process = await asyncio.create_subprocess_exec(
        *ts_updates_client,
        json.dumps(agent),
        json.dumps(PROMPTS),
        json.dumps(capabilities),
        "unstable",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 240)
    result: dict[str, Any] = json.loads(out)
    assert result["stopReasons"] == ["end_turn"] * len(PROMPTS), result
    return result


async def test_ts_unstable_client_takes_plans_by_id_and_subagents(ts_updates_client: list[str], tmp_path: Path) -> None:
    result = await run(ts_updates_client, tmp_path, {"plan": {}, "subagents": {}})
    assert result["errors"] == []
    updates = result["updates"]
    assert UNSTABLE <= {u["sessionUpdate"] for u in updates}
    assert not [u for u in updates if u["sessionUpdate"] == "plan"]
    children = {u["sessionId"] for u in updates if u["sessionUpdate"] == "subagent_update"}
    assert len(children) == 2, "one child session per sub-agent tool call"
    assert children <= set(result["sessions"]), "the children's own updates reached the client"


async def test_ts_unstable_client_without_the_capabilities_gets_none(
    ts_updates_client: list[str], tmp_path: Path
) -> None:
    result = await run(ts_updates_client, tmp_path, {})
    assert result["errors"] == []
    assert not [u for u in result["updates"] if u["sessionUpdate"] in UNSTABLE]
    assert len(set(result["sessions"])) == 1
    assert [u["sessionUpdate"] for u in result["updates"]].count("plan") == 3
