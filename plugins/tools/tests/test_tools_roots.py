"""``await session.roots()``: the directories the core resolved, else one worker-thread call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from langacp.api import SessionContext
from langacp.plugins import Plugins
from langacp_tools import diffs, plugin


async def test_the_roots_the_core_resolved_need_no_worker_thread(
    linked: tuple[Path, Path], hops: list[Callable[..., Any]]
) -> None:
    link, real = linked
    plugins = Plugins()
    plugins.register(plugin)
    session = SessionContext(session_id="s", cwd=str(link), plugins=plugins)
    await plugins.session_created(session)
    assert len(hops) == 1  # the core's (configuration and roots), none of the plugin's
    assert diffs.state(session).roots == [str(real)] == diffs.real_roots(session)


async def test_a_session_the_core_did_not_open_is_resolved_in_a_worker_thread(
    linked: tuple[Path, Path], hops: list[Callable[..., Any]]
) -> None:
    link, real = linked
    session = SessionContext(session_id="s", cwd=str(link))
    await plugin.langacp_session_loaded(session)
    assert len(hops) == 1
    assert diffs.state(session).roots == [str(real)]
