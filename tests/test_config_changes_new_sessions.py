"""A changed ``.langacp.toml`` applies to the next session, over real pipes.

The sessions of a working directory share the configuration read for an earlier one while
neither file changes (``langacp.trust.open_layers``); a changed file is read again.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from langacp.testing.harness import serve

AGENT = "langacp.testing.agent:agent"


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    old = time.time_ns() - 30_000_000_000  # older than the window in which a file is read again anyway
    os.utime(path, ns=(old, old))


async def test_a_changed_project_file_applies_to_the_next_session(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = project / ".langacp.toml"
    write(config, "[titles]\nagent_tool = false\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with serve(AGENT, plugins=["commands", "titles"], env=env, cwd=project) as agent:
        await agent.initialize()
        for _ in range(2):  # the second session shares the first one's read
            sid = await agent.new_session()
            assert "set_session_title" not in await agent.reply(sid, "/tools")
        write(config, "[titles]\nagent_tool = true\n")
        sid = await agent.new_session()
        assert "- `set_session_title`" in await agent.reply(sid, "/tools")
        write(config, "[titles]\nagent_tool = false\n")
        sid = await agent.new_session()
        assert "set_session_title" not in await agent.reply(sid, "/tools")
