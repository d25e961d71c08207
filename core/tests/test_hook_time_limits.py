"""Time limits on awaitable hook implementations, in process.

``langacp_session_tools`` has its own limit (``LANGACP_SESSION_TOOLS_TIMEOUT``), an implementation
may set its own with ``hook_time_limit``, and a slow implementation holds up only the task
(the request, the session) that awaits it.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from langacp import SessionContext, hookimpl
from langacp.api import hook_time_limit
from langacp.plugins import Plugins

SESSION = SessionContext(session_id="s", cwd="/tmp")


class SlowTools:
    """``langacp_session_tools`` that takes ``delay`` seconds, after setting its own limit if ``limit`` is given."""

    def __init__(self, delay: float, limit: float | str | None = "unset") -> None:
        self.delay, self.limit = delay, limit

    @hookimpl
    async def langacp_session_tools(self, session: Any) -> list[str]:
        if self.limit != "unset":
            hook_time_limit(self.limit)  # type: ignore[arg-type]
        await asyncio.sleep(self.delay)
        return [f"tool of {session.session_id}"]

    @hookimpl
    async def langacp_session_created(self, session: Any) -> None:
        await asyncio.sleep(self.delay)


def _plugins(monkeypatch: pytest.MonkeyPatch, plugin: object, **env: str) -> Plugins:
    for name in ("LANGACP_HOOK_TIMEOUT", "LANGACP_SESSION_TOOLS_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    plugins = Plugins()
    plugins.register(plugin, "slow")
    return plugins


async def test_session_tools_have_their_own_limit_not_the_hook_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = _plugins(monkeypatch, SlowTools(0.3), LANGACP_HOOK_TIMEOUT="0.05")
    assert plugins.time_limits["LANGACP_SESSION_TOOLS_TIMEOUT"] == 300
    assert await plugins.session_tools(SESSION) == ["tool of s"]  # 0.3 s > LANGACP_HOOK_TIMEOUT
    await plugins.session_created(SESSION)  # the other hooks keep LANGACP_HOOK_TIMEOUT
    assert plugins.failures == {("slow", "langacp_session_created"): 1}  # the core's own hooks are not timed


async def test_the_session_tools_limit_is_set_by_its_variable(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    plugins = _plugins(monkeypatch, SlowTools(5), LANGACP_SESSION_TOOLS_TIMEOUT="0.05")
    with caplog.at_level(logging.ERROR):
        assert await asyncio.wait_for(plugins.session_tools(SESSION), 4) == []
    assert "did not finish within 0.05 s (LANGACP_SESSION_TOOLS_TIMEOUT) in langacp_session_tools" in caplog.text
    unlimited = _plugins(monkeypatch, SlowTools(0), LANGACP_SESSION_TOOLS_TIMEOUT="0")
    assert unlimited.time_limits["LANGACP_SESSION_TOOLS_TIMEOUT"] is None


async def test_an_implementation_sets_its_own_longer_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = _plugins(monkeypatch, SlowTools(0.3, limit=10), LANGACP_SESSION_TOOLS_TIMEOUT="0.05")
    assert await plugins.session_tools(SESSION) == ["tool of s"]
    plugins = _plugins(monkeypatch, SlowTools(0.3, limit=None), LANGACP_SESSION_TOOLS_TIMEOUT="0.05")
    assert await plugins.session_tools(SESSION) == ["tool of s"]
    assert not [key for key in plugins.failures if key[0] == "slow"]


async def test_an_implementation_sets_its_own_shorter_limit(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    plugins = _plugins(monkeypatch, SlowTools(5, limit=0.05))
    with caplog.at_level(logging.ERROR):
        assert await asyncio.wait_for(plugins.session_tools(SESSION), 4) == []
    assert "did not finish within its own limit, 0.05 s" in caplog.text


def test_outside_an_awaited_implementation_it_does_nothing() -> None:
    hook_time_limit(0.001)  # no running hook, no event loop: nothing to limit


class OwnTimeout:
    @hookimpl
    async def langacp_session_tools(self, session: Any) -> list[str]:
        raise TimeoutError("the plugin's own wait ran out")


async def test_a_timeout_error_of_the_implementation_is_reported_as_raised(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    plugins = _plugins(monkeypatch, OwnTimeout())
    with caplog.at_level(logging.ERROR):
        assert await plugins.session_tools(SESSION) == []
    assert "raised TimeoutError: the plugin's own wait ran out" in caplog.text


async def test_a_slow_implementation_holds_up_only_its_own_session(monkeypatch: pytest.MonkeyPatch) -> None:
    class PerSession(SlowTools):
        @hookimpl
        async def langacp_session_tools(self, session: Any) -> list[str]:
            hook_time_limit(30)
            await asyncio.sleep(5 if session.session_id == "slow" else 0)
            return [session.session_id]

    plugins = _plugins(monkeypatch, PerSession(0), LANGACP_SESSION_TOOLS_TIMEOUT="0.05")
    slow = asyncio.ensure_future(plugins.session_tools(SessionContext(session_id="slow", cwd="/tmp")))
    await asyncio.sleep(0.1)  # past the variable's limit: the slow one's own limit holds
    assert await asyncio.wait_for(plugins.session_tools(SessionContext(session_id="fast", cwd="/tmp")), 2) == ["fast"]
    assert not slow.done()
    slow.cancel()


async def test_a_task_that_outlived_its_hook_cannot_move_a_finished_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[asyncio.Task[None]] = []

    class Spawns:
        @hookimpl
        async def langacp_session_tools(self, session: Any) -> list[str]:
            async def later() -> None:
                await asyncio.sleep(0.05)
                hook_time_limit(10)  # the hook is done: nothing to move, no error

            started.append(asyncio.ensure_future(later()))
            return ["tool"]

    plugins = _plugins(monkeypatch, Spawns())
    assert await plugins.session_tools(SESSION) == ["tool"]
    await asyncio.wait_for(started[0], 5)  # raises if hook_time_limit did


async def test_the_core_s_own_hooks_are_not_cut_off_by_the_plugin_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tiny ``LANGACP_HOOK_TIMEOUT``: the user still hears what the project's file may not do; a plugin is cut off."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / ".langacp.toml").write_text('[permissions.kinds]\n"*" = "allow"\nread = "ask"\n')
    sent: list[Any] = []

    async def send_update(update: Any) -> None:  # a client reading its pipe slowly: the write waits
        await asyncio.sleep(0.2)
        sent.append(update)

    session = SessionContext(session_id="s", cwd=str(tmp_path), send_update=send_update)
    plugins = _plugins(monkeypatch, SlowTools(5), LANGACP_HOOK_TIMEOUT="0.01")
    await asyncio.wait_for(plugins.session_created(session), 4)
    assert plugins.failures == {("slow", "langacp_session_created"): 1}
    [notice] = [update.content.text for update in sent]
    assert "configuration not applied" in notice and '.langacp.toml: permissions.kinds.* = "allow"' in notice
    from langacp.trust import layers_for

    assert layers_for(session).project == {"permissions": {"kinds": {"read": "ask"}}}  # only what tightens


class QuickStart:
    """A quick ``langacp_session_created`` that moves its own limit (a second timer) before it returns."""

    @hookimpl
    async def langacp_session_created(self, session: Any) -> None:
        hook_time_limit(120)
        await asyncio.sleep(0)


async def test_a_finished_limit_keeps_nothing_of_the_context_it_ran_in_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit's timer, cancelled when the implementation returns, stays scheduled until its
    deadline: made in the awaiting task's context it would keep what that context holds (a
    turn, its session, the session's graph and model) alive until then."""
    import contextvars
    import gc
    import weakref

    held: contextvars.ContextVar[object] = contextvars.ContextVar("held")

    class Big:
        pass

    plugins = _plugins(monkeypatch, QuickStart(), LANGACP_HOOK_TIMEOUT="600")

    async def in_a_turn() -> weakref.ref[Big]:
        big = Big()
        held.set(big)  # in this task's context only
        await plugins.session_created(SessionContext(session_id="s", cwd="/tmp"))
        return weakref.ref(big)

    loop = asyncio.get_running_loop()
    sooner = loop.call_later(30, lambda: None)  # a live timer ahead of them: asyncio keeps cancelled ones behind it
    try:
        task = loop.create_task(in_a_turn(), context=contextvars.Context())
        ref = await task
        del task
        await asyncio.sleep(0)  # the handle that woke this task up (holding the finished one) is gone
        gc.collect()
        assert not [key for key in plugins.failures if key[0] == "slow"]
        assert ref() is None  # the 600 s and 120 s timers, cancelled but still scheduled, do not hold it
    finally:
        sooner.cancel()
