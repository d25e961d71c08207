"""The TypeScript SDK 2.4.0 client (npm ``@agentclientprotocol/sdk``, tests/fixtures/ts_scenarios_client/scenarios.mjs)
against ``langacp serve`` over real pipes, in ACP v1 (the stable API) and v2 (the experimental v2 API):
a tool turn, cancel mid-stream, resume with replay from a second process, a permission, a config
change, auth. Every scenario must also pass the SDK's own validation (no error reported)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from langacp.testing.harness import serve_command

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[1]
MODES_AGENT = str(ROOT / "plugins" / "modes" / "tests" / "modes_agent.py") + ":agent"
PROVIDER = ROOT / "core" / "tests" / "fixtures" / "provider"  # a stand-in langchain_anthropic
VERSIONS = ["1", "2"]
"""The protocol versions every scenario runs in."""


async def run(
    ts_scenarios_client: list[str],
    tmp_path: Path,
    version: str,
    scenario: str,
    agent: list[str],
    options: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    environment.update(
        {
            "LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1",
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
        }
    )
    environment.update(env or {})
    process = await asyncio.create_subprocess_exec(
        *ts_scenarios_client,
        version,
        json.dumps(agent),
        scenario,
        json.dumps(options or {}),
        cwd=work,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 240)
    result: dict[str, Any] = json.loads(out)
    assert "failed" not in result, result
    assert result["errors"] == [], result["errors"]
    return result


def tool_calls(updates: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per tool call id, the fields as last seen (v1 ``tool_call`` + updates, v2 upserts) and every status."""
    calls: dict[str, dict[str, Any]] = {}
    for update in updates:
        if update["sessionUpdate"] not in ("tool_call", "tool_call_update"):
            continue
        call = calls.setdefault(update["toolCallId"], {"statuses": []})
        call.update({k: v for k, v in update.items() if k != "status" and v is not None})
        if update.get("status"):
            call["statuses"].append(update["status"])
    return calls


@pytest.mark.parametrize("version", VERSIONS)
async def test_ts_client_tool_turn(ts_scenarios_client: list[str], tmp_path: Path, version: str) -> None:
    result = await run(ts_scenarios_client, tmp_path, version, "tool", serve_command())
    assert result["init"]["protocolVersion"] == int(version)
    assert result["stopReason"] == "end_turn"
    calls = tool_calls(result["updates"])
    assert len(calls) == 1, calls
    call = next(iter(calls.values()))
    assert call["name"] == "add" and call["title"]
    assert call["statuses"][-1] == "completed"
    assert result["text"].endswith("done: 3")
    if version == "2":
        assert result["messageId"]
        states = [u["state"] for u in result["updates"] if u["sessionUpdate"] == "state_update"]
        assert states[0] == "running" and states[-1] == "idle", states


@pytest.mark.parametrize("version", VERSIONS)
async def test_ts_client_cancel_mid_stream(ts_scenarios_client: list[str], tmp_path: Path, version: str) -> None:
    result = await run(ts_scenarios_client, tmp_path, version, "cancel", serve_command())
    assert result["cancelledAfter"] is not None
    assert result["stopReason"] == "cancelled"
    assert result["tookMs"] < 15000, result["tookMs"]  # the 30 s tool was stopped, not waited for
    assert "waiting" in "".join(
        c.get("text", "")
        for u in result["updates"]
        if u["sessionUpdate"].startswith("agent_message")
        for c in (u["content"] if isinstance(u["content"], list) else [u["content"]])
    )


async def test_ts_client_v2_cancels_one_tool_call(ts_scenarios_client: list[str], tmp_path: Path) -> None:
    result = await run(ts_scenarios_client, tmp_path, "2", "toolcancel", serve_command())
    assert result["answer"] == {}
    assert result["stopReason"] == "end_turn" and result["tookMs"] < 15000, result["tookMs"]
    [call] = tool_calls(result["updates"]).values()
    assert call["statuses"][-1] == "cancelled"
    assert "Cancelled" in result["text"]  # the model read the cancel as the tool's result; the turn went on


@pytest.mark.parametrize("version", VERSIONS)
async def test_ts_client_resume_with_replay(ts_scenarios_client: list[str], tmp_path: Path, version: str) -> None:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    agent = serve_command("langacp.testing.agent:agent", "--store", store)
    result = await run(ts_scenarios_client, tmp_path, version, "replay", agent)
    assert result["first"]["stopReason"] == "end_turn" and result["first"]["text"] == "remember me"
    replayed = result["replayed"]
    users = [u for u in replayed if u["sessionUpdate"].startswith("user_message")]
    agents = [u for u in replayed if u["sessionUpdate"].startswith("agent_message")]
    assert "echo remember me" in json.dumps(users) and "remember me" in json.dumps(agents)
    # The restored thread answers from its history, in a process that never saw the first turn.
    assert result["next"] == {"stopReason": "end_turn", "text": "echo remember me | history"}
    if version == "2":
        assert {u["messageId"] for u in users} == {result["first"]["messageId"]}


@pytest.mark.parametrize("version", VERSIONS)
async def test_ts_client_permission(ts_scenarios_client: list[str], tmp_path: Path, version: str) -> None:
    out = tmp_path / "out.txt"
    prompt = f"tool write_file {json.dumps({'path': str(out), 'text': 'allowed'})}"
    agent = serve_command(MODES_AGENT, plugins=["modes", "permissions", "tools"])
    result = await run(
        ts_scenarios_client, tmp_path, version, "permission", agent, {"prompt": prompt, "answer": "allow_once"}
    )
    assert result["stopReason"] == "end_turn"
    assert out.read_text() == "allowed\n"
    [asked] = result["permissions"]
    assert "allow_once" in [o["kind"] for o in asked["options"]]
    if version == "2":
        assert asked["title"]
        states = [u["state"] for u in result["updates"] if u["sessionUpdate"] == "state_update"]
        assert "requires_action" in states and states[states.index("requires_action") + 1] == "running", states
    else:
        assert asked["toolCall"]["toolCallId"]


@pytest.mark.parametrize("version", VERSIONS)
async def test_ts_client_config_change(ts_scenarios_client: list[str], tmp_path: Path, version: str) -> None:
    out = tmp_path / "out.txt"
    prompt = f"tool write_file {json.dumps({'path': str(out), 'text': 'refused'})}"
    agent = serve_command(MODES_AGENT, plugins=["modes", "permissions", "tools"])
    options = {"configId": "mode", "value": "readonly", "prompt": prompt}
    result = await run(ts_scenarios_client, tmp_path, version, "config", agent, options)
    assert "mode" in result["before"] and set(result["before"]) <= set(result["after"])
    assert result["currentValue"] == "readonly"
    assert result["stopReason"] == "end_turn"
    assert not out.exists() and result["permissions"] == []  # read-only: refused without asking
    failed = [c for c in tool_calls(result["updates"]).values() if c["statuses"][-1] == "failed"]
    assert len(failed) == 1 and "Read-only" in json.dumps(failed[0]["content"])


@pytest.mark.parametrize("version", VERSIONS)
async def test_ts_client_auth(ts_scenarios_client: list[str], tmp_path: Path, version: str) -> None:
    env = {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(PROVIDER), os.environ.get("PYTHONPATH")])),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "ANTHROPIC_API_KEY": "sk-from-env-abcd",
    }
    agent = [
        sys.executable,
        "-m",
        "langacp.cli",
        "serve",
        "--store",
        "memory",
        "--model",
        "anthropic:claude-sonnet-4-5",
    ]
    result = await run(ts_scenarios_client, tmp_path, version, "auth", agent, {"methodId": "langacp-env"}, env)
    assert result["methods"] == [{"id": "langacp-env", "type": "agent"}]  # no terminal method: not asked for
    assert result["login"] == {} and result["logout"] == {}
    assert result["stopReason"] == "end_turn" and "key ending abcd" in result["text"]
