"""Hook implementations isolated: a failure is logged and skipped, an awaitable is timed.

Each implementation is wrapped before pluggy registers it (:meth:`HookGuard.stand_in`), as its
hook's record (:data:`langacp.hookspecs.CONTRACT`) says. One that raises is logged (once per
plugin and hook, with its traceback; later at debug level) and answers ``None`` ("not mine"),
or the hook's ``failed`` answer; a cancelled prompt, a LangGraph interrupt and a request's
own error pass through. A synchronous hook's wrapper is synchronous (an awaitable returned
from it counts as a failure); an async-capable hook's wrapper is a coroutine function that
awaits what the implementation returns, within the hook's time limit (none for the core's own
implementations: the limits are for plugins). A plugin that implements what the contract
does not have (a hook that does not exist, an ``async def`` of a synchronous hook) is refused.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pluggy

from langacp.hookspecs import CONTRACT, PROJECT, TIME_LIMITS, Hook
from langacp.notices import notify_once
from langacp.types import PromptCancelled, SessionContext, TurnPaused

__all__ = ["PLAIN_RESULTS", "Guarded", "HookGuard", "hook_time_limit"]

log = logging.getLogger("langacp.plugins")

PLAIN_RESULTS: frozenset[type] = frozenset({str, list, dict, tuple, bool, int, float})
"""Hook results that are never awaitable: returned without ``inspect.isawaitable`` (the hot path)."""


@dataclass
class _RunningLimit:
    """The time limit of the hook implementation being awaited (see :func:`hook_time_limit`)."""

    timeout: asyncio.Timeout
    declared: float | None = None
    """What the implementation set with :func:`hook_time_limit`, if it did."""


_RUNNING_LIMIT: contextvars.ContextVar[_RunningLimit | None] = contextvars.ContextVar(
    "langacp_hook_limit", default=None
)


def hook_time_limit(seconds: float | None) -> None:
    """Within an awaitable hook implementation: give it ``seconds`` from now (``None``: no limit).

    It replaces the limit langacp set (``LANGACP_HOOK_TIMEOUT``, or
    ``LANGACP_SESSION_TOOLS_TIMEOUT`` for ``langacp_session_tools``), longer or shorter: for
    work with a limit of its own that the user configured, such as starting an MCP server.
    Outside an awaited implementation (a synchronous hook, code no hook runs, a task that
    outlived its hook) it does nothing.
    """
    running = _RUNNING_LIMIT.get()
    if running is None:
        return
    loop = asyncio.get_running_loop()
    try:
        _reschedule(running.timeout, None if seconds is None else loop.time() + max(0.0, seconds))
    except RuntimeError:  # the implementation has finished (or timed out) already
        return
    running.declared = seconds


def _reschedule(timeout: asyncio.Timeout, when: float | None) -> None:
    """``timeout.reschedule(when)``, its timer made in an empty context.

    A timer keeps the context it was made in until its deadline, even once cancelled: made in
    a turn's context it would keep the turn, its session and everything the session holds
    (its graph, its model) alive for the whole limit (60 s) after the hook returned, and after
    the session closed. The timer only cancels the task; it reads no context variable.
    """
    contextvars.Context().run(timeout.reschedule, when)


def _seconds_from_env(name: str, default: float) -> float | None:
    """A time limit from the environment: ``default`` when unset or not a number, ``None`` (no limit) for 0."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        log.warning("langacp: %s=%r is not a number; using %g s", name, raw, default)
        return default
    return value if value > 0 else None


def _passes_through(exc: BaseException, hook: Hook) -> bool:
    """Exceptions a hook raises on purpose: a cancelled or paused turn, a LangGraph interrupt, a request's error."""
    if isinstance(exc, (PromptCancelled, TurnPaused)):
        return True
    acp = sys.modules.get("acp")  # neither can have been raised unless its package was imported
    if acp is not None and isinstance(exc, acp.RequestError) and hook.answering:
        return True
    errors = sys.modules.get("langgraph.errors")
    return errors is not None and isinstance(exc, errors.GraphBubbleUp)


class _StandIn:
    """What pluggy registers in place of a plugin: the plugin's hook implementations, wrapped."""

    def __dir__(self) -> list[str]:  # what pluggy looks through: the implementations, not object's members
        return list(self.__dict__)


class Guarded:
    """What a synchronous hook's wrapper does around its implementation, for a caller that runs it inline.

    ``guarded(*args)`` (the wrapper pluggy registers) is: ``function(*args)``; an exception goes to
    :meth:`failure`; a result that is not ``None``, not of a :data:`PLAIN_RESULTS` type and awaitable
    goes to :meth:`awaitable`. :class:`langacp.hook_calls.DirectCalls` runs those steps itself.
    """

    __slots__ = ("_guard", "function", "hook", "plugin")

    def __init__(self, guard: HookGuard, function: Callable[..., Any], plugin: str, hook: Hook) -> None:
        self._guard = guard
        self.function = function
        self.plugin = plugin
        self.hook = hook

    def failure(self, exc: Exception, args: tuple[Any, ...]) -> Any:
        """The answer when the implementation raised ``exc``: the hook's ``failed`` value (logged), or ``exc`` again."""
        return self._guard._failure(exc, self.plugin, self.hook, args)

    def awaitable(self, result: Any, args: tuple[Any, ...]) -> Any:
        """The answer when the implementation returned an awaitable (``result``): a failure, logged."""
        if inspect.iscoroutine(result):
            result.close()
        hook = self.hook
        why = f"returned an awaitable, but {hook.name} is not awaited"
        self._guard._failed(self.plugin, hook.name, None, why, args)
        return hook.failed


class HookGuard:
    """Wraps hook implementations and counts their failures."""

    def __init__(self) -> None:
        self.time_limits = {name: _seconds_from_env(name, default) for name, default in TIME_LIMITS.items()}
        """Seconds (``None``: no limit) for each variable of :data:`~langacp.hookspecs.TIME_LIMITS`."""
        self.failures: dict[tuple[str, str], int] = {}
        """How often each (plugin, hook) implementation failed or timed out in this process."""

    def stand_in(self, pm: pluggy.PluginManager, plugin: object, name: str, builtin: bool) -> tuple[object, list[str]]:
        """What pluggy registers for ``plugin``: its hook implementations, each wrapped; and why to refuse it.

        The core's own implementations (``builtin``) are guarded too, but never timed: the time
        limits are for plugins' code.
        """
        stand_in = _StandIn()
        refused = []
        for attribute in dir(plugin):
            options = pm.parse_hookimpl_opts(plugin, attribute)
            if options is None:
                continue
            function = getattr(plugin, attribute)
            hook = CONTRACT.get(options.get("specname") or attribute)
            if hook is None:
                if not options.get("optionalhook"):
                    refused.append(f"{attribute} is not a langacp hook")
            elif not hook.awaited and (inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function)):
                what = attribute if attribute == hook.name else f"{attribute} (for {hook.name})"
                refused.append(f"{what} is async def, but langacp calls that hook synchronously")
            elif not (options.get("wrapper") or options.get("hookwrapper")):
                function = self._wrap(function, name, hook, timed=not builtin)
                setattr(function, f"{PROJECT}_impl", options)
            setattr(stand_in, attribute, function)
        return stand_in, refused

    def _wrap(self, function: Callable[..., Any], plugin: str, hook: Hook, timed: bool) -> Callable[..., Any]:
        limit = hook.limit if timed else None

        async def awaited(*args: Any) -> Any:
            try:
                result = function(*args)
                return await self._awaited(result, plugin, hook, limit, args) if inspect.isawaitable(result) else result
            except Exception as exc:  # noqa: BLE001 - logged and skipped; what passes through is re-raised
                return self._failure(exc, plugin, hook, args)

        inline = Guarded(self, function, plugin, hook)

        def called(*args: Any) -> Any:
            try:
                result = function(*args)
            except Exception as exc:  # noqa: BLE001 - logged and skipped; what passes through is re-raised
                return inline.failure(exc, args)
            if result is None or type(result) in PLAIN_RESULTS or not inspect.isawaitable(result):
                return result
            return inline.awaitable(result, args)

        guarded: Callable[..., Any] = awaited if hook.awaited else called
        guarded.__wrapped__ = function  # type: ignore[attr-defined]  # pluggy reads the signature through it
        if not hook.awaited:
            called.guarded = inline  # type: ignore[attr-defined]  # what DirectCalls runs inline
        return guarded

    async def _awaited(
        self, awaitable: Awaitable[Any], plugin: str, hook: Hook, limit: str | None, args: tuple[Any, ...]
    ) -> Any:
        """``awaitable``'s result within the limit ``limit`` names (see :func:`hook_time_limit`)."""
        seconds = self.time_limits[limit] if limit else None
        running: _RunningLimit | None = None
        try:
            # asyncio.timeout, not wait_for: the implementation runs in the awaiting task (the request's
            # own, so a slow one holds up only its session) and can move its deadline (hook_time_limit).
            async with asyncio.timeout(None) as timeout:
                if seconds is not None:
                    _reschedule(timeout, asyncio.get_running_loop().time() + seconds)
                running = _RunningLimit(timeout)
                token = _RUNNING_LIMIT.set(running)
                try:
                    return await awaitable
                finally:
                    _RUNNING_LIMIT.reset(token)
        except TimeoutError:
            if running is None or not running.timeout.expired():  # the implementation's own TimeoutError
                raise
        declared = running.declared
        why = f"its own limit, {declared:g} s" if declared is not None else f"{seconds:g} s ({limit})"
        self._failed(plugin, hook.name, None, f"did not finish within {why}", args)
        return hook.failed

    def _failure(self, exc: Exception, plugin: str, hook: Hook, args: tuple[Any, ...]) -> Any:
        """Log a failure and answer the hook's ``failed`` value; re-raise what passes through."""
        if _passes_through(exc, hook):
            raise exc
        self._failed(plugin, hook.name, exc, None, args)
        return hook.failed

    def _failed(
        self, plugin: str, hook: str, exc: BaseException | None, why: str | None = None, args: tuple[Any, ...] = ()
    ) -> None:
        """Log a failing implementation: the first time with its traceback, later quietly; tell the
        session it was called for, once (a ``notice``, to a client that shows them)."""
        key = (plugin, hook)
        count = self.failures[key] = self.failures.get(key, 0) + 1
        what = why or f"raised {type(exc).__name__}: {exc}"
        if count == 1:
            log.error(
                "langacp: plugin %r %s in %s; it was skipped (further failures of it are logged at debug level)",
                plugin,
                what,
                hook,
                exc_info=None if why else exc,
            )
        else:
            log.debug("langacp: plugin %r %s in %s (failure %d)", plugin, what, hook, count)
        session = next((a for a in args if isinstance(a, SessionContext)), None)
        if session is not None:
            detail = f"{plugin} {what} in {hook}; langacp went on without it (later failures are only logged)."
            notify_once(session, ("hook", plugin, hook), "warning", f"Plugin {plugin} skipped in {hook}", detail[:1000])
