"""A new session's modes and config options are asked of the plugins once, for its response and its commands.

The slash commands (``langacp_available_commands``) get what the response carries as the hook's
``modes`` and ``config_options`` arguments instead of asking those hooks again; while the
plugins return the same command objects, the ``available_commands_update`` is built once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp.schema import AvailableCommand, SessionMode, SessionModeState

from langacp.agent import LangacpAgent
from langacp.api import SessionContext, hookimpl
from langacp.plugins import Plugins

COMMAND = AvailableCommand(name="go", description="Go")


class Offering:
    """Modes, one config option's worth of nothing, and a command that needs modes."""

    def __init__(self) -> None:
        self.asked = {"modes": 0, "options": 0}
        self.seen: list[tuple[Any, Any]] = []

    @hookimpl
    def langacp_session_modes(self, session: SessionContext) -> SessionModeState:
        self.asked["modes"] += 1
        return SessionModeState(current_mode_id="a", available_modes=[SessionMode(id="a", name="A")])

    @hookimpl
    def langacp_config_options(self, session: SessionContext) -> list[Any]:
        self.asked["options"] += 1
        return []

    @hookimpl
    def langacp_available_commands(self, session: SessionContext, modes: Any, config_options: list[Any]) -> list[Any]:
        self.seen.append((modes, config_options))
        return [COMMAND] if modes is not None else []


class Recording:
    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)


async def test_modes_and_options_are_asked_once_per_new_session(tmp_path: Path) -> None:
    plugins, offering = Plugins(), Offering()
    plugins.register(offering, name="offering")
    agent = LangacpAgent("langacp.testing.agent:graph", plugins, store_url="memory")
    client = Recording()
    agent.on_connect(client)  # type: ignore[arg-type]
    await agent.initialize(protocol_version=1)
    responses = []
    for _ in range(2):
        responses.append(await agent.new_session(cwd=str(tmp_path)))
    for _ in range(20):
        await asyncio.sleep(0)
        if len(client.updates) == 2:
            break
    assert offering.asked == {"modes": 2, "options": 2}  # once per session
    assert [modes for modes, _ in offering.seen] == [r.modes for r in responses]  # what each response carries
    assert offering.seen[0][0] is responses[0].modes
    first, second = client.updates
    assert first.session_update == "available_commands_update" and first.available_commands == [COMMAND]
    assert second is first  # the same commands: the update is built once


async def test_a_loaded_session_is_answered_with_its_current_modes(tmp_path: Path) -> None:
    """session/load of a live session asks again: its mode may have changed since it opened."""
    plugins, offering = Plugins(), Offering()
    plugins.register(offering, name="offering")
    agent = LangacpAgent("langacp.testing.agent:agent", plugins, store_url="memory")
    agent.on_connect(Recording())  # type: ignore[arg-type]
    await agent.initialize(protocol_version=1)
    session_id = (await agent.new_session(cwd=str(tmp_path))).session_id
    before = dict(offering.asked)
    await agent.load_session(cwd=str(tmp_path), session_id=session_id)
    assert offering.asked == {"modes": before["modes"] + 1, "options": before["options"] + 1}
