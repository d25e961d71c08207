"""ACP v2 sessions over real pipes: ``session/resume`` with and without replay (v2 folds load into
it), a permission (``requires_action``, a title and the tool call as its subject), modes as config
options, ``auth/login`` / ``auth/logout``, list and delete. Every message the agent sends is
validated against the official ``schema/v2/schema.json`` (npm, installed by the test)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from acp_schema import Schema
from langacp.default_agent import DEFAULT_TARGET
from langacp.testing import calls
from v2_client import V2Agent, v2_agent

pytestmark = pytest.mark.asyncio

REPO = Path(__file__).resolve().parents[1]
TARGET = "langacp.testing.agent:agent"
MODES_TARGET = f"{REPO / 'plugins' / 'modes' / 'tests' / 'modes_agent.py'}:agent"
MESSAGES = {"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call_update"}


async def opened(agent: V2Agent, cwd: Path) -> dict[str, Any]:
    await agent.initialize(2)
    return await agent.new_session(cwd)


async def test_v2_resume_with_replay_keeps_the_ids(v2_schema: Schema, tmp_path: Path) -> None:
    store = ["--store", f"sqlite:///{tmp_path / 'sessions.db'}"]
    async with v2_agent(TARGET, tmp_path, v2_schema, args=store) as agent:
        sid = (await opened(agent, tmp_path))["sessionId"]
        ack = await agent.prompt(sid, "echo hello")
        await agent.idle(sid)
        await agent.prompt(sid, 'tool add {"a": 1, "b": 2}')
        await agent.idle(sid, 2)
        live_calls = {u["toolCallId"] for u in agent.updates(sid) if u["sessionUpdate"] == "tool_call_update"}
        listed = await agent.call("session/list", {"cwd": str(tmp_path)})
        assert [s["sessionId"] for s in listed["sessions"]] == [sid]
        agent.check()

    async with v2_agent(TARGET, tmp_path, v2_schema, args=store) as agent:
        await agent.initialize(2)
        bad = await agent.request(
            "session/resume", {"sessionId": sid, "cwd": str(tmp_path), "replayFrom": {"type": "x"}}
        )
        assert bad["error"]["code"] == -32602, "an unknown cursor is refused, never resumed without replay"
        params = {"sessionId": sid, "cwd": str(tmp_path), "replayFrom": {"type": "start"}}
        result = await agent.call("session/resume", params)
        assert isinstance(result.get("configOptions", []), list)
        updates = agent.updates(sid)
        assert updates[-1] == {"sessionUpdate": "state_update", "state": "idle"}, "the snapshot before the response"
        for index, update in enumerate(updates):  # each replayed message: its whole form, empty, then its chunks
            kind = update["sessionUpdate"]
            if kind.endswith("_chunk") and kind != "compaction_summary_chunk":
                primer = {"sessionUpdate": kind[: -len("_chunk")], "messageId": update["messageId"], "content": []}
                assert primer in updates[:index], (update, updates[:index])
        users = [u for u in updates if u["sessionUpdate"] == "user_message_chunk"]
        assert users[0]["messageId"] == ack["messageId"], "a replayed user message keeps the id it was inserted with"
        assert [u["content"]["text"] for u in users] == ["echo hello", 'tool add {"a": 1, "b": 2}']
        replayed = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
        assert {u["toolCallId"] for u in replayed} == live_calls and replayed[-1]["status"] == "completed"
        # The resumed session takes prompts.
        await agent.prompt(sid, "echo again")
        await agent.idle(sid)
        agent.check()

    async with v2_agent(TARGET, tmp_path, v2_schema, args=store) as agent:
        await agent.initialize(2)
        await agent.call("session/resume", {"sessionId": sid, "cwd": str(tmp_path)})
        kinds = [u["sessionUpdate"] for u in agent.updates(sid)]
        assert not MESSAGES & set(kinds), "no replay without replayFrom"
        assert agent.states(sid) == ["idle:None"]
        assert await agent.call("session/delete", {"sessionId": sid}) == {}
        assert (await agent.call("session/list", {}))["sessions"] == []
        agent.check()


async def test_v2_permission_requires_action_with_a_title_and_subject(v2_schema: Schema, tmp_path: Path) -> None:
    project, target = tmp_path / "project", tmp_path / "project" / "out.txt"
    project.mkdir()
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with v2_agent(MODES_TARGET, tmp_path, v2_schema, plugins=["modes", "tools"], env=env) as agent:
        new = await opened(agent, project)
        sid = new["sessionId"]
        asked: list[dict[str, Any]] = []

        async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
            asked.append({"method": method, "params": params, "states": agent.states(sid)})
            allow = next(o for o in params["options"] if o["kind"] == "allow_once")
            return {"outcome": {"outcome": "selected", "optionId": allow["optionId"]}}

        agent.on_request = answer
        await agent.prompt(sid, calls.tool_prompt("write_file", path=str(target), text="one"))
        await agent.idle(sid)
        assert [a["method"] for a in asked] == ["session/request_permission"]
        request = asked[0]["params"]
        assert request["title"] and request["subject"]["type"] == "tool_call"
        call_id = request["subject"]["toolCall"]["toolCallId"]
        sent = [u for u in agent.updates(sid) if u.get("toolCallId") == call_id]
        assert sent[0]["name"] == "write_file", "the subject is the tool call the client was shown"
        assert asked[0]["states"][-1] == "requires_action", "waiting on the user while asked"
        assert agent.states(sid) == ["running", "requires_action", "running", "idle:end_turn"]
        assert target.read_text() == "one\n"
        agent.check()


async def test_v2_modes_are_config_options(v2_schema: Schema, tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with v2_agent(MODES_TARGET, tmp_path, v2_schema, plugins=["modes", "tools"], env=env) as agent:
        new = await opened(agent, tmp_path)
        assert "modes" not in new, "v2 has no session modes: they are a config option"
        mode = next(o for o in new["configOptions"] if o["category"] == "mode")
        other = next(c["value"] for c in mode["options"] if c["value"] != mode["currentValue"])
        params = {"sessionId": new["sessionId"], "configId": mode["configId"], "type": "id", "value": other}
        result = await agent.call("session/set_config_option", params)
        changed = next(o for o in result["configOptions"] if o["configId"] == mode["configId"])
        assert changed["currentValue"] == other
        wrong = await agent.request("session/set_config_option", {**params, "type": "boolean", "value": "yes"})
        assert wrong["error"]["code"] == -32602
        for update in agent.updates(new["sessionId"]):
            assert update["sessionUpdate"] != "current_mode_update"
        agent.check()


MODEL = "anthropic:claude-sonnet-4-5"
KEY = "sk-ant-test-0123456789-wxyz"


async def test_v2_auth_login_and_logout(v2_schema: Schema, tmp_path: Path) -> None:
    config = tmp_path / "config"
    stored = config / "langacp" / "credentials.json"
    stored.parent.mkdir(parents=True)
    stored.write_text(json.dumps({"keys": {"ANTHROPIC_API_KEY": KEY}}))
    stored.chmod(0o600)
    provider = REPO / "core" / "tests" / "fixtures" / "provider"
    env = {
        "XDG_CONFIG_HOME": str(config),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "PYTHONPATH": os.pathsep.join([str(provider), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "ANTHROPIC_API_KEY": "",
    }
    args = ["--model", MODEL, "--store", "memory"]
    async with v2_agent(DEFAULT_TARGET, tmp_path, v2_schema, env=env, args=args) as agent:
        result = await agent.initialize(2)
        methods = {m["methodId"]: m for m in result["authMethods"]}
        assert set(methods) == {"langacp-env"}, "no terminal method to a client without auth.terminal"
        refused = await agent.request("auth/login", {"methodId": "nope"})
        assert refused["error"]["code"] == -32602
        assert await agent.call("auth/login", {"methodId": "langacp-env"}) == {}
        session = await agent.new_session(tmp_path)
        await agent.prompt(session["sessionId"], "hi")
        await agent.idle(session["sessionId"])
        assert await agent.call("auth/logout", {}) == {}
        assert not stored.exists()
        agent.check()
