"""``await session.roots()``: the directories the core resolved, else one worker-thread call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from langacp.api import SessionContext
from langacp.plugins import Plugins
from langacp_client_tools import plugin


async def test_the_roots_the_core_resolved_need_no_worker_thread(
    linked: tuple[Path, Path], hops: list[Callable[..., Any]]
) -> None:
    link, real = linked
    plugins = Plugins()
    plugins.register(plugin)
    session = SessionContext(session_id="s", cwd=str(link), plugins=plugins)
    await plugins.session_created(session)  # the core's one worker-thread call (configuration, roots)
    opened = len(hops)
    await plugins.session_tools(session)
    await plugins.session_middleware(session)
    assert len(hops) == opened  # no worker thread of the plugin's own
    held = plugin.held_tools(session)
    assert held is not None and held.files.paths.roots == [str(real)]


async def test_a_session_the_core_did_not_open_is_resolved_in_a_worker_thread(
    linked: tuple[Path, Path], hops: list[Callable[..., Any]]
) -> None:
    link, real = linked
    session = SessionContext(session_id="s", cwd=str(link))
    await plugin.langacp_session_tools(session)
    assert len(hops) == 1
    held = plugin.held_tools(session)
    assert held is not None and held.files.paths.roots == [str(real)]
