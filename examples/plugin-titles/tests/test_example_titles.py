"""The example plugin, installed: found by entry point, overrides the default title, and blockable."""

from __future__ import annotations

import os
import sys

from acp import text_block

from langacp.client import RecordingClient, spawn_agent
from langacp.plugins import load_plugins

TARGET = "langacp.testing.agent:agent"


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=True)
    [record] = [r for r in plugins.records if r.name == "example_titles"]
    assert record.status == "loaded"
    assert record.distribution == "langacp-example-titles"
    assert record.hooks == ["langacp_tool_title"]


async def _titles(*args: str) -> list[str]:
    client = RecordingClient()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    command = [sys.executable, "-m", "langacp.cli", "serve", TARGET, *args]
    async with spawn_agent(command, client, env=env) as (conn, _process):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=os.getcwd())).session_id
        await conn.prompt(session_id=sid, prompt=[text_block('tool add {"a": 2, "b": 3}')])
    return [u.title for u in client.of(sid) if u.session_update.startswith("tool_call") and u.title]


async def test_installing_it_overrides_the_default_title() -> None:
    assert (await _titles())[-1] == "add(a=2, b=3)"


async def test_blocking_it_restores_the_default() -> None:
    assert (await _titles("-p", "no:example_titles"))[-1] == "add"
