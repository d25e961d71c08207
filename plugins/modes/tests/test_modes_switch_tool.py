"""``switch_mode`` is made once per set of modes and switches only the mode of the session whose turn
calls it, if that session was given it: outside a turn, or for a session given no tool, it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import ToolException

from langacp.api import SessionContext
from langacp.plugins import Plugins
from langacp.testing.turns import in_turn
from langacp_modes import plugin


async def test_one_switch_tool_switches_the_running_sessions_mode_only(tmp_path: Path) -> None:
    plugins = Plugins()
    plugins.register(plugin)
    a, b, stranger = (SessionContext(session_id=name, cwd=str(tmp_path), plugins=plugins) for name in "abs")
    for session in (a, b, stranger):
        await plugins.session_created(session)
    [tool] = await plugins.session_tools(a)
    assert await plugins.session_tools(b) == [tool]  # the same object: made once
    modes = [s.mode_id for s in (a, b, stranger)]

    switch = {"mode_id": "readonly", "reason": "test"}
    assert "switched the session to" in await in_turn(a, lambda: tool.ainvoke(switch))
    assert [s.mode_id for s in (a, b, stranger)] == ["readonly", *modes[1:]]

    refused = "runs only in a turn of a session it was given to"
    with pytest.raises(ToolException, match=refused):
        await tool.ainvoke(switch)  # outside a turn
    with pytest.raises(ToolException, match=refused):
        await in_turn(stranger, lambda: tool.ainvoke(switch))  # a session given no switch_mode
    assert [s.mode_id for s in (a, b, stranger)] == ["readonly", *modes[1:]]
