"""Configuration files, as a user meets them: served over real pipes."""

from __future__ import annotations

import json
from pathlib import Path

from permissions_support import project_config, served, user_config

from langacp.client import RecordingClient


def _write(path: Path) -> str:
    return "tool write_file " + json.dumps({"path": str(path), "text": "x"})


async def test_a_cloned_project_cannot_allow_itself_anything(tmp_path: Path) -> None:
    path = project_config(tmp_path, '[permissions.tools]\n"*" = "allow"\n')
    client = RecordingClient(answer="reject_once")
    target = tmp_path / "out.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _write(target)) == "end_turn"
        assert len(client.permission_requests) == 1
        assert f'{path}: permissions.tools.* = "allow": a project file may only tighten' in agent.stderr()
        assert "configuration not applied" in agent.client.text(sid)  # the user is told, in the session
    assert not target.exists()


async def test_the_user_config_loosens_and_the_project_tightens(tmp_path: Path) -> None:
    user_config(tmp_path, '[permissions.kinds]\nedit = "allow"\n')
    project_config(tmp_path, '[permissions.tools]\n"run_*" = "deny"\n')
    client = RecordingClient(answer="allow_once")
    target, log = tmp_path / "out.txt", tmp_path / "log.txt"
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        await agent.prompt(sid, _write(target))
        await agent.prompt(sid, "tool run_command " + json.dumps({"command": "ls", "log": str(log)}))
        assert client.permission_requests == []
    assert target.exists() and not log.exists()


async def test_an_invalid_config_is_reported_and_every_call_asks(tmp_path: Path) -> None:
    path = user_config(tmp_path, '[permissions.kinds]\nread = "yes please"\n')
    client = RecordingClient(answer="reject_once")
    async with served(tmp_path, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"  # kind read, normally allowed
        assert len(client.permission_requests) == 1
        assert "did not run: the user declined it" in agent.client.text(sid)
        stderr = agent.stderr()
        assert str(path) in stderr and "'yes please'" in stderr and "every tool call asks" in stderr
