"""The plugin as installed: found through its entry point, and the tools of the default agent of ``langacp serve``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from client_tools_support import editor, served

from langacp.default_agent import DEFAULT_TARGET
from langacp.default_agent.demo_model import LABEL
from langacp.testing.calls import result_text, tool_calls

DEMO_ENV = {"LANGACP_DEMO_DELAY": "0"}


def test_discovered_through_its_entry_point() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "plugins", "--json"], capture_output=True, text=True, check=True
    )
    [record] = [r for r in json.loads(listed.stdout)["plugins"] if r["name"] == "client-tools"]
    assert record["status"] == "loaded"
    assert record["distribution"] == "langacp-client-tools"
    assert {"langacp_session_tools", "langacp_session_closed", "langacp_system_prompt"} <= set(record["hooks"])


async def test_the_default_agent_becomes_a_coding_agent(tmp_path: Path) -> None:
    """``langacp serve`` with no TARGET: the plugin's read_file replaces the built-in one, and it writes and runs."""
    readme = tmp_path / "README.md"
    readme.write_text("# On disk\n")
    client = editor("editor", buffers={str(readme): "# In the editor, unsaved\n"})
    async with served(tmp_path, client, target=DEFAULT_TARGET, env=DEMO_ENV) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "read README.md") == "end_turn"
        assert "> # In the editor, unsaved" in agent.client.text(sid)

        agent.client.updates.clear()
        assert await agent.prompt(sid, "write 'hello world' to notes/hello.txt") == "end_turn"
        assert (tmp_path / "notes" / "hello.txt").read_text() == "hello world\n"
        assert "Created notes/hello.txt" in agent.client.text(sid)

        agent.client.updates.clear()
        assert await agent.prompt(sid, "replace world with there in notes/hello.txt") == "end_turn"
        assert (tmp_path / "notes" / "hello.txt").read_text() == "hello there\n"

        agent.client.updates.clear()
        assert await agent.prompt(sid, "run cat notes/hello.txt") == "end_turn"
        [call] = tool_calls(agent.client.of(sid)).values()
        assert result_text(call) == "hello there\nExit code: 0"
        assert "hello there" in agent.client.text(sid)

        # The built-in tools the plugin does not replace are still there.
        agent.client.updates.clear()
        assert await agent.prompt(sid, "list files") == "end_turn"
        assert "`notes/`" in agent.client.text(sid)
    assert client.methods() == [
        "fs/read_text_file",  # read README.md
        "fs/read_text_file",  # the proposed diff of the write (the file does not exist yet)
        "fs/write_text_file",
        "fs/read_text_file",  # the proposed diff of the edit
        "fs/read_text_file",  # the edit
        "fs/write_text_file",
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/output",
        "terminal/release",
    ]


async def test_without_the_plugin_the_default_agent_stays_read_only(tmp_path: Path) -> None:
    client = editor("editor")
    async with served(tmp_path, client, target=DEFAULT_TARGET, env=DEMO_ENV, plugins=()) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "write hello to notes.txt") == "end_turn"
        text = agent.client.text(sid)
    # how to install it: the package, or (run from a clone of langacp) the clone's directory
    assert text.startswith(LABEL)
    assert re.search(r"pip install (langacp-client-tools|-e \S*plugins/client-tools)\b", text), text
    assert not (tmp_path / "notes.txt").exists()
    assert client.calls == []
