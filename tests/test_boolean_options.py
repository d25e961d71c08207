"""Boolean config options over real pipes: langacp-modes offers "auto-accept edits" (``type: "boolean"``)
only to a client that advertises ``session.configOptions.boolean``; every response and update is
validated against the official schema (npm ``@agentclientprotocol/sdk`` 2.4.0, ``schema/v1/schema.json``).
A client that does not advertise it gets exactly the options it got before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_schema import PipeAgent, Schema, pipe_agent
from langacp.testing import calls

pytestmark = pytest.mark.asyncio

REPO = Path(__file__).resolve().parents[1]
TARGET = f"{REPO / 'plugins' / 'modes' / 'tests' / 'modes_agent.py'}:agent"
PLUGINS = ["modes", "tools"]
CAPABLE: dict[str, Any] = {"session": {"configOptions": {"boolean": {}}}}
PLAIN: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}}


async def open_session(agent: PipeAgent, capabilities: dict[str, Any], cwd: Path) -> dict[str, Any]:
    reply = await agent.request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities})
    assert "result" in reply, reply
    reply = await agent.request(1, "session/new", {"cwd": str(cwd), "mcpServers": []})
    result: dict[str, Any] = reply["result"]
    return result


async def write(agent: PipeAgent, msg_id: int, sid: str, path: Path, text: str) -> None:
    params = {
        "sessionId": sid,
        "prompt": [{"type": "text", "text": calls.tool_prompt("write_file", path=str(path), text=text)}],
    }
    reply = await agent.request(msg_id, "session/prompt", params)
    assert reply["result"]["stopReason"] == "end_turn", reply


def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "config")}


async def test_boolean_option_for_a_client_that_advertises_it(schema: Schema, tmp_path: Path) -> None:
    project, target = tmp_path / "project", tmp_path / "project" / "out.txt"
    project.mkdir()
    async with pipe_agent(TARGET, tmp_path, plugins=PLUGINS, env=env(tmp_path)) as agent:
        new = await open_session(agent, CAPABLE, project)
        schema.validate("NewSessionResponse", new)
        sid = new["sessionId"]
        options = {o["id"]: o for o in new["configOptions"]}
        assert options["mode"]["category"] == "mode" and options["mode"]["type"] == "select"
        auto = options["auto_accept_edits"]
        assert auto["type"] == "boolean" and auto["currentValue"] is False
        # Off: an edit in interactive mode asks (the pipe client cannot answer: the edit does not run).
        await write(agent, 2, sid, target, "one")
        assert [r["method"] for r in agent.requests] == ["session/request_permission"]
        assert not target.exists()
        # A string is not a boolean's value: -32602, and the agent keeps serving.
        bad = await agent.request(
            3, "session/set_config_option", {"sessionId": sid, "configId": "auto_accept_edits", "value": "true"}
        )
        assert bad["error"]["code"] == -32602, bad
        params = {"sessionId": sid, "configId": "auto_accept_edits", "type": "boolean", "value": True}
        reply = await agent.request(4, "session/set_config_option", params)
        schema.validate("SetSessionConfigOptionResponse", reply["result"])
        [on] = [o for o in reply["result"]["configOptions"] if o["id"] == "auto_accept_edits"]
        assert on["currentValue"] is True
        # On: the edit runs without asking.
        await write(agent, 5, sid, target, "two")
        assert len(agent.requests) == 1 and target.read_text() == "two\n"
        # A deny still denies: read-only mode does not run the edit, auto-accept or not.
        mode = await agent.request(6, "session/set_mode", {"sessionId": sid, "modeId": "readonly"})
        assert "result" in mode, mode
        await write(agent, 7, sid, target, "three")
        assert target.read_text() == "two\n" and len(agent.requests) == 1
        for note in agent.notifications:
            if note["method"] == "session/update":
                schema.validate("SessionNotification", note["params"])
        updates = [n["params"]["update"] for n in agent.notifications if n["method"] == "session/update"]
        sent = [u for u in updates if u["sessionUpdate"] == "config_option_update"]
        assert sent and all("auto_accept_edits" in {o["id"] for o in u["configOptions"]} for u in sent)


async def test_no_boolean_option_for_a_client_that_does_not(schema: Schema, tmp_path: Path) -> None:
    project, target = tmp_path / "project", tmp_path / "project" / "out.txt"
    project.mkdir()
    async with pipe_agent(TARGET, tmp_path, plugins=PLUGINS, env=env(tmp_path)) as agent:
        new = await open_session(agent, PLAIN, project)
        schema.validate("NewSessionResponse", new)
        sid = new["sessionId"]
        assert [o["id"] for o in new["configOptions"]] == ["mode"]  # exactly what it got before
        params = {"sessionId": sid, "configId": "auto_accept_edits", "type": "boolean", "value": True}
        reply = await agent.request(2, "session/set_config_option", params)
        assert reply["error"]["code"] == -32602, reply  # not offered: not settable either
        await write(agent, 3, sid, target, "one")
        assert [r["method"] for r in agent.requests] == ["session/request_permission"]  # still asks
        updates = [n["params"]["update"] for n in agent.notifications if n["method"] == "session/update"]
        sent = [o for u in updates if u["sessionUpdate"] == "config_option_update" for o in u["configOptions"]]
        assert all(o["type"] == "select" for o in sent)


THINKING = """
[[models.choices]]
id = "thinker"
name = "Thinker"
factory = "modes_agent:smart_model"
thinking = { on = { think = "hard" }, off = { think = "no" } }

[[models.choices]]
id = "fast"
name = "Fast"
factory = "modes_agent:fast_model"
"""


def thinking_env(tmp_path: Path) -> dict[str, str]:
    """The user's config with a model choice that has a thinking switch; modes_agent importable for its factories."""
    import os

    from langacp.testing.harness import write_user_config

    write_user_config(tmp_path, THINKING)
    here = str(REPO / "plugins" / "modes" / "tests")
    return {**env(tmp_path), "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))}


async def set_option(agent: PipeAgent, schema: Schema, msg_id: int, sid: str, **params: Any) -> dict[str, Any]:
    reply = await agent.request(msg_id, "session/set_config_option", {"sessionId": sid, **params})
    assert "result" in reply, reply
    schema.validate("SetSessionConfigOptionResponse", reply["result"])
    return {o["id"]: o for o in reply["result"]["configOptions"]}


async def answer(agent: PipeAgent, msg_id: int, sid: str, text: str) -> str:
    before = len(agent.updates(sid))
    reply = await agent.request(
        msg_id, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    )
    assert reply["result"]["stopReason"] == "end_turn", reply
    chunks = [u for u in agent.updates(sid)[before:] if u["sessionUpdate"] == "agent_message_chunk"]
    return "".join(c["content"].get("text", "") for c in chunks)


@pytest.mark.parametrize("capable", [True, False], ids=["boolean", "plain"])
async def test_thinking_on_off_for_a_model_with_a_switch(schema: Schema, tmp_path: Path, capable: bool) -> None:
    """Thinking on/off (category ``thought_level``) while a model with a thinking switch is chosen: a boolean
    option for a client that takes them, an ``on``/``off`` select for one that does not; the setting reaches
    the model call."""
    project = tmp_path / "project"
    project.mkdir()
    async with pipe_agent(TARGET, tmp_path, plugins=PLUGINS, env=thinking_env(tmp_path)) as agent:
        new = await open_session(agent, CAPABLE if capable else PLAIN, project)
        schema.validate("NewSessionResponse", new)
        sid = new["sessionId"]
        assert "thinking" not in {o["id"] for o in new["configOptions"]}, "the agent's own model has no switch"
        options = await set_option(agent, schema, 2, sid, configId="model", value="thinker")
        switch = options["thinking"]
        assert switch["category"] == "thought_level"
        if capable:
            assert switch["type"] == "boolean" and switch["currentValue"] is False
        else:
            assert switch["type"] == "select" and switch["currentValue"] == "off"
            assert [o["value"] for o in switch["options"]] == ["on", "off"]
        assert await answer(agent, 3, sid, "thinking") == "think: no"
        on = {"type": "boolean", "value": True} if capable else {"value": "on"}
        options = await set_option(agent, schema, 4, sid, configId="thinking", **on)
        assert options["thinking"]["currentValue"] == (True if capable else "on")
        assert await answer(agent, 5, sid, "thinking") == "think: hard"
        bad = await agent.request(
            6, "session/set_config_option", {"sessionId": sid, "configId": "thinking", "value": "maybe"}
        )
        assert bad["error"]["code"] == -32602, bad
        options = await set_option(agent, schema, 7, sid, configId="model", value="fast")
        assert "thinking" not in options, "offered only while a model with a switch is chosen"
        assert await answer(agent, 8, sid, "thinking") == "think: unset"
        for note in agent.notifications:
            if note["method"] == "session/update":
                schema.validate("SessionNotification", note["params"])
    if not capable:
        sent = [n["params"]["update"] for n in agent.notifications if n["method"] == "session/update"]
        assert all(o["type"] == "select" for u in sent if "configOptions" in u for o in u["configOptions"])
