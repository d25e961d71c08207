"""langacp-client-tools with an ACP v2 client, over real pipes.

v2 has no client ``fs/*`` or ``terminal/*`` methods, so a v2 client's session gets the plugin's
local tools, confined to the session's directories exactly like v1's fallback for a client
without the ``fs`` capability. The attacks: ``..`` and absolute paths out, a symlink pointing
out (read, write, a command's working directory), and a v2 client that *claims* v1's
``fs``/``terminal`` in its capabilities, which must never make the agent send it a method v2
does not have.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema import Schema
from v2_client import V2Agent, v2_agent

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"
SECRET = "TOP SECRET outside the project"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a file, next to a directory it must not reach, and a link pointing there."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / "notes.txt").write_text("hello from disk\n")
    (outside / "secret.txt").write_text(SECRET + "\n")
    (work / "link").symlink_to(outside, target_is_directory=True)
    (work / "secret-link.txt").symlink_to(outside / "secret.txt")
    return work


async def call(agent: V2Agent, sid: str, name: str, **args: Any) -> dict[str, Any]:
    """One turn calling one tool: the call as the v2 client saw it (fields merged over its upserts)."""
    before = len(agent.updates(sid))
    idles = sum(s.startswith("idle") for s in agent.states(sid))
    await agent.prompt(sid, f"tool {name} {json.dumps(args)}")
    await agent.idle(sid, idles + 1, 60)
    assert agent.states(sid)[-1] == "idle:end_turn", agent.states(sid)
    merged: dict[str, Any] = {"statuses": []}
    for update in agent.updates(sid)[before:]:
        if update["sessionUpdate"] == "tool_call_update":
            merged.update({k: v for k, v in update.items() if v is not None and k != "status"})
            if update.get("status"):
                merged["statuses"].append(update["status"])
    merged["text"] = json.dumps(agent.updates(sid)[before:])
    return merged


async def test_v2_client_gets_the_local_tools_confined(tmp_path: Path, project: Path, v2_schema: Schema) -> None:
    outside = project.parent / "outside"
    asked: list[str] = []

    async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        asked.append(method)
        if method == "fs/read_text_file":
            return {"content": "FROM THE CLIENT"}
        if method == "session/request_permission":
            return {"outcome": {"outcome": "selected", "optionId": params["options"][0]["optionId"]}}
        return {}

    async with v2_agent(TARGET, tmp_path, v2_schema, plugins=["client-tools"]) as agent:
        agent.on_request = answer
        # A confused client: v1's fs and terminal capabilities in a v2 initialize.
        init = await agent.initialize(fs={"readTextFile": True, "writeTextFile": True}, terminal=True)
        assert init["protocolVersion"] == 2
        sid = (await agent.new_session(project))["sessionId"]

        read = await call(agent, sid, "read_file", path="notes.txt")
        assert read["statuses"][-1] == "completed" and "hello from disk" in read["text"]
        assert "FROM THE CLIENT" not in read["text"]  # read locally, not through the client

        for path in ("../outside/secret.txt", str(outside / "secret.txt"), "link/secret.txt", "secret-link.txt"):
            refused = await call(agent, sid, "read_file", path=path)
            assert refused["statuses"][-1] == "failed", (path, refused)
            assert SECRET not in refused["text"] and "outside the session's directories" in refused["text"]

        for path in ("link/pwned.txt", "../outside/pwned.txt"):
            refused = await call(agent, sid, "write_file", path=path, content="pwned")
            assert refused["statuses"][-1] == "failed", (path, refused)
        refused = await call(agent, sid, "edit_file", path="secret-link.txt", old_string="TOP", new_string="NOT")
        assert refused["statuses"][-1] == "failed"
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        assert (outside / "secret.txt").read_text() == SECRET + "\n"

        refused = await call(agent, sid, "run_command", command="cat secret.txt", cwd="link")
        assert refused["statuses"][-1] == "failed" and SECRET not in refused["text"]
        ran = await call(agent, sid, "run_command", command="cat notes.txt && pwd")
        assert ran["statuses"][-1] == "completed" and "hello from disk" in ran["text"]

        written = await call(agent, sid, "write_file", path="made/new.txt", content="inside")
        assert written["statuses"][-1] == "completed" and (project / "made" / "new.txt").read_text() == "inside"

        # v2 has no fs/* or terminal/*: never asked, whatever the client claimed.
        assert not [m for m in asked if m.startswith(("fs/", "terminal/"))], asked
        agent.check()
