"""Plugin manager: finds plugins by entry point, blocks, lists, and calls hooks through a typed facade.

Entry points in group ``langacp`` are loaded one at a time: a plugin that fails to import or
to register is reported on stderr and skipped, the others still load. (pluggy's own
``load_setuptools_entrypoints`` stops at the first broken one.)

Blocking: ``-p no:NAME`` on the command line or ``LANGACP_DISABLE_PLUGINS=a,b``.
``LANGACP_DISABLE_PLUGIN_AUTOLOAD=1`` loads no entry point except those named with ``-p NAME``.
The core's defaults are always registered (``trylast``) and cannot be blocked.

Isolation: every hook implementation is wrapped when it is registered. One that raises is
logged (once per plugin and hook, with its traceback) and skipped: a mapper falls through to
the next implementation and, at the end, to the core's ``trylast`` default; a collector or a
notification goes on without it. An awaitable a hook returns is awaited under the same guard,
with a time limit (``LANGACP_HOOK_TIMEOUT`` seconds, default 60; for ``langacp_session_tools``,
which may start servers, ``LANGACP_SESSION_TOOLS_TIMEOUT``, default 300) except for the hooks
that wait for the user and the core's own implementations. An implementation whose work has
its own configured limit (an MCP server's start-up timeout) sets its limit with
:func:`hook_time_limit`. The limit is the
awaiting request's own: a slow hook holds up its session, never another one. A plugin's import
runs with ``sys.stdout`` pointed at stderr: stdout is the protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import pluggy

from langacp import hookspecs
from langacp.types import (
    PermissionDecision,
    PermissionRule,
    PermissionVerdict,
    PromptCancelled,
    SessionContext,
    ToolCallInfo,
    TurnOutcome,
    combine_permission,
)

if TYPE_CHECKING:
    from acp import RequestError
    from acp.helpers import ContentBlock
    from acp.schema import (
        AgentCapabilities,
        AvailableCommand,
        SessionModeState,
        StopReason,
        ToolCallLocation,
        ToolKind,
    )

__all__ = [
    "ENTRY_POINT_GROUP",
    "PluginNameError",
    "PluginRecord",
    "Plugins",
    "canonical_name",
    "driver_records",
    "hook_time_limit",
    "load_plugins",
]

log = logging.getLogger("langacp.plugins")

ENTRY_POINT_GROUP = "langacp"
DISABLE_ENV = "LANGACP_DISABLE_PLUGINS"
NO_AUTOLOAD_ENV = "LANGACP_DISABLE_PLUGIN_AUTOLOAD"
HOOK_TIMEOUT_ENV = "LANGACP_HOOK_TIMEOUT"
DEFAULT_HOOK_TIMEOUT = 60.0
"""Seconds an awaitable returned by a hook implementation may take before it is given up."""
SESSION_TOOLS_TIMEOUT_ENV = "LANGACP_SESSION_TOOLS_TIMEOUT"
DEFAULT_SESSION_TOOLS_TIMEOUT = 300.0
"""The same for ``langacp_session_tools``: building a session's tools may start servers."""

UNTIMED_HOOKS = frozenset(
    {"langacp_ask_permission", "langacp_resume_interrupt", "langacp_run_command", "langacp_authenticate"}
)
"""Hooks whose awaitables wait for a person (a permission answer, a command, a login): no time limit."""

_FAILED_RESULT: dict[str, Any] = {
    # A broken policy must not let a tool run unasked, nor a broken prompt approve it.
    "langacp_permission": PermissionVerdict("ask"),
    "langacp_ask_permission": PermissionVerdict("deny", "the permission request failed"),
    "langacp_permission_rules": [PermissionRule("ask", source="a plugin whose rules failed")],
}
"""What a failing implementation of these hooks answers instead of ``None`` ("not mine")."""

_PLAIN_RESULTS: frozenset[type] = frozenset({str, list, dict, tuple, bool, int, float})
"""Hook results that are never awaitable: returned without ``inspect.isawaitable`` (the hot path)."""
_KIND_MEMO = "_langacp_kind"
"""Attribute of a ``ToolCallInfo`` holding ``(plugins, session, kind)`` once its kind was asked."""

T = TypeVar("T")


@dataclass
class PluginRecord:
    """One plugin (or driver) as ``langacp plugins`` lists it."""

    name: str
    status: Literal["builtin", "loaded", "blocked", "broken", "not-loaded", "driver"]
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    error: str | None = None
    group: str = "langacp"
    """Its entry-point group: ``langacp`` for plugins, ``langacp.stores`` / ``langacp.targets`` for drivers."""
    source: str | None = None
    """Where it comes from: the entry point's object reference (``module`` or ``module:attr``)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


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
        running.timeout.reschedule(None if seconds is None else loop.time() + max(0.0, seconds))
    except RuntimeError:  # the implementation has finished (or timed out) already
        return
    running.declared = seconds


_ANSWERING_HOOKS = frozenset(
    {"langacp_authenticate", "langacp_set_mode", "langacp_set_config_option", "langacp_run_command"}
)
"""Hooks that answer a client's request: a JSON-RPC error they raise is that request's answer."""


def _passes_through(exc: BaseException, hook: str) -> bool:
    """Exceptions a hook raises on purpose: a cancelled prompt, a LangGraph interrupt, a request's error."""
    if isinstance(exc, PromptCancelled):
        return True
    acp = sys.modules.get("acp")  # neither can have been raised unless its package was imported
    if acp is not None and isinstance(exc, acp.RequestError) and hook in _ANSWERING_HOOKS:
        return True
    errors = sys.modules.get("langgraph.errors")
    return errors is not None and isinstance(exc, errors.GraphBubbleUp)


def _split_names(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").replace(";", ",").split(",") if part.strip()}


def canonical_name(name: str) -> str:
    """A plugin name as compared: ``client-tools``, ``client_tools`` and ``Client_Tools`` are one plugin."""
    return name.strip().replace("-", "_").lower()


class PluginNameError(ValueError):
    """``-p NAME`` or ``-p no:NAME`` names no installed plugin (or ``no:`` a built-in one, which cannot be blocked)."""


def parse_plugin_options(options: Iterable[str]) -> tuple[set[str], set[str]]:
    """Split ``-p`` values into (blocked names, explicitly enabled names)."""
    blocked: set[str] = set()
    enabled: set[str] = set()
    for option in options:
        if option.startswith("no:"):
            blocked.add(option[3:])
        else:
            enabled.add(option)
    return blocked, enabled


DRIVER_GROUPS = ("langacp.stores", "langacp.targets")
"""Entry-point groups of drivers (chosen by name through stevedore, never loaded as plugins)."""


def driver_records() -> list[PluginRecord]:
    """Every installed driver, from entry-point metadata only (nothing is imported)."""
    records = []
    for group in DRIVER_GROUPS:
        for ep in sorted(entry_points(group=group), key=lambda ep: ep.name):
            dist, version = (ep.dist.name, ep.dist.version) if ep.dist is not None else (None, None)
            records.append(PluginRecord(ep.name, "driver", dist, version, group=group, source=ep.value))
    return records


class Plugins:
    """The plugin manager and a typed facade over its hooks.

    The rest of langacp calls these methods, never ``pm.hook.*`` directly, so a type checker
    sees the contract. Every hook implementation is isolated (see the module docstring): a
    broken plugin cannot take a session down.
    """

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.records: list[PluginRecord] = []
        self.hook_timeout = _seconds_from_env(HOOK_TIMEOUT_ENV, DEFAULT_HOOK_TIMEOUT)
        self.session_tools_timeout = _seconds_from_env(SESSION_TOOLS_TIMEOUT_ENV, DEFAULT_SESSION_TOOLS_TIMEOUT)
        self.failures: dict[tuple[str, str], int] = {}
        """How often each (plugin, hook) implementation failed or timed out in this process."""
        from langacp.default_plugins import DEFAULT_PLUGINS

        self._defaults = DEFAULT_PLUGINS
        self._register_defaults()

    def _register_defaults(self) -> None:
        """(Re-)register the core's defaults *after* every other plugin.

        pluggy calls ``trylast`` implementations in registration order, so registering the
        defaults last keeps them behind any plugin's ``trylast`` implementation too.
        """
        for name, _ in self._defaults:
            if self.pm.has_plugin(name):
                self.pm.unregister(name=name)
        for name, module in self._defaults:
            self.pm.register(module, name=name)
            self._isolate(module, builtin=True)
        version = _version("langacp")
        self.records = [r for r in self.records if r.status != "builtin"]
        self.records[:0] = [
            PluginRecord(name, "builtin", "langacp", version, _hooks_of(self.pm, module), source=module.__name__)
            for name, module in self._defaults
        ]

    # -- loading ---------------------------------------------------------------------------

    def load_entry_points(
        self,
        *,
        blocked: Iterable[str] = (),
        enabled: Iterable[str] = (),
        autoload: bool | None = None,
    ) -> None:
        """Load plugins from entry points, one by one, honouring blocks and the autoload switch.

        Names match with ``-`` or ``_`` alike, in any case. :class:`PluginNameError` if
        ``enabled`` or ``blocked`` names a plugin that is not installed, or ``blocked`` a built-in
        one (naming a built-in one in ``enabled`` is allowed: it is always loaded). A name in
        ``LANGACP_DISABLE_PLUGINS`` that is not installed is only warned about: the variable may
        be set for many setups.
        """
        found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
        installed = {canonical_name(ep.name): ep.name for ep in found}
        self._check_names(set(blocked), set(enabled), installed)
        from_env = {canonical_name(n) for n in _split_names(os.environ.get(DISABLE_ENV))}
        for name in sorted(from_env - installed.keys()):
            log.warning("langacp: %s names %r, which is not installed", DISABLE_ENV, name)
        blocked_set = {canonical_name(n) for n in blocked} | from_env
        enabled_set = {canonical_name(n) for n in enabled}
        if autoload is None:
            autoload = not _truthy(os.environ.get(NO_AUTOLOAD_ENV))
        # pluggy calls the most recently registered implementation first: register in reverse
        # alphabetical order so that, within a tier, the alphabetically first plugin wins.
        with contextlib.redirect_stdout(sys.stderr):  # a plugin printing while it loads
            self._load_found(found, blocked_set, enabled_set, autoload)
        self._register_defaults()
        self.records.sort(key=lambda r: (r.status != "builtin", r.name))

    def _check_names(self, blocked: set[str], enabled: set[str], installed: dict[str, str]) -> None:
        """Every ``-p`` name must name an installed plugin: a typo is an error, not a plugin left out."""
        builtin = {canonical_name(name) for name, _ in self._defaults}
        known = ", ".join(sorted(installed.values())) or "none"
        for option, name in sorted([*(("no:", n) for n in blocked), *(("", n) for n in enabled)]):
            if option and canonical_name(name) in builtin:
                raise PluginNameError(f"-p no:{name}: {name!r} is built into langacp and cannot be blocked")
            if canonical_name(name) not in installed and canonical_name(name) not in builtin:
                raise PluginNameError(f"-p {option}{name}: no plugin of that name is installed (installed: {known})")

    def _load_found(self, found: list[EntryPoint], blocked: set[str], enabled: set[str], autoload: bool) -> None:
        for ep in reversed(found):
            dist = ep.dist.name if ep.dist is not None else None
            version = ep.dist.version if ep.dist is not None else None
            name = canonical_name(ep.name)
            if name in blocked:
                self.records.append(PluginRecord(ep.name, "blocked", dist, version, source=ep.value))
                continue
            if not autoload and name not in enabled:
                self.records.append(PluginRecord(ep.name, "not-loaded", dist, version, source=ep.value))
                continue
            self._load_one(ep, dist, version)

    def _load_one(self, ep: EntryPoint, dist: str | None, version: str | None) -> None:
        if self.pm.has_plugin(ep.name):
            log.warning("langacp: two plugins are named %r; %s was skipped", ep.name, dist)
            self.records.append(PluginRecord(ep.name, "broken", dist, version, error="duplicate plugin name"))
            return
        try:
            plugin = ep.load()
            self.pm.register(plugin, name=ep.name)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure of a third-party plugin
            self._broken(ep.name, dist, version, f"{type(exc).__name__}: {exc}")
            return
        unknown = [c.name for c in self.pm.get_hookcallers(plugin) or [] if not c.has_spec()]
        if unknown:
            self.pm.unregister(plugin)
            self._broken(ep.name, dist, version, f"implements unknown hooks: {', '.join(sorted(unknown))}")
            return
        self._isolate(plugin)
        self.records.append(PluginRecord(ep.name, "loaded", dist, version, _hooks_of(self.pm, plugin), source=ep.value))

    def _broken(self, name: str, dist: str | None, version: str | None, error: str) -> None:
        log.error("langacp: plugin %r (%s) failed to load and was skipped: %s", name, dist, error)
        self.records.append(PluginRecord(name, "broken", dist, version, error=error))

    def register(self, plugin: object, name: str | None = None) -> None:
        """Register a plugin object from code (tests, embedding applications)."""
        self.pm.register(plugin, name=name)
        self._isolate(plugin)
        self._register_defaults()
        self.records.append(
            PluginRecord(name or self.pm.get_name(plugin) or repr(plugin), "loaded", hooks=_hooks_of(self.pm, plugin))
        )

    # -- isolation ---------------------------------------------------------------------------

    def _isolate(self, plugin: object, *, builtin: bool = False) -> None:
        """Wrap each of ``plugin``'s hook implementations so that a failure skips it (see the module doc).

        The core's own implementations (``builtin``) are isolated too, but never timed: the plugin
        time limit is for third-party code, and a tiny ``LANGACP_HOOK_TIMEOUT`` must not skip the
        core's own work (telling the user which project settings were ignored).
        """
        for caller in self.pm.get_hookcallers(plugin) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin and not (impl.wrapper or impl.hookwrapper):
                    # pluggy calls ``impl.function``; replacing it keeps its order and firstresult.
                    guarded = self._guarded(impl.function, impl.plugin_name, caller.name, timed=not builtin)
                    setattr(impl, "function", guarded)  # noqa: B010

    def _time_limit(self, hook: str, timed: bool = True) -> tuple[float | None, str]:
        """The limit on a hook's awaitables, and the variable that sets it."""
        if hook in UNTIMED_HOOKS or not timed:
            return None, ""
        if hook == "langacp_session_tools":
            return self.session_tools_timeout, SESSION_TOOLS_TIMEOUT_ENV
        return self.hook_timeout, HOOK_TIMEOUT_ENV

    def _guarded(self, function: Callable[..., Any], plugin: str, hook: str, *, timed: bool) -> Callable[..., Any]:
        failed = _FAILED_RESULT.get(hook)

        def guarded(*args: Any) -> Any:
            try:
                result = function(*args)
            except Exception as exc:
                if _passes_through(exc, hook):
                    raise
                self._failed(plugin, hook, exc)
                return failed
            if result is None or type(result) in _PLAIN_RESULTS or not inspect.isawaitable(result):
                return result
            return self._guarded_await(result, plugin, hook, failed, timed)

        guarded.__wrapped__ = function  # type: ignore[attr-defined]
        return guarded

    async def _guarded_await(
        self, awaitable: Awaitable[Any], plugin: str, hook: str, failed: Any, timed: bool = True
    ) -> Any:
        timeout, variable = self._time_limit(hook, timed)
        # asyncio.timeout, not wait_for: the implementation runs in the awaiting task (the request's
        # own, so a slow one holds up only its session) and can move its deadline (hook_time_limit).
        running: _RunningLimit | None = None
        try:
            async with asyncio.timeout(timeout) as limit:
                running = _RunningLimit(limit)
                token = _RUNNING_LIMIT.set(running)
                try:
                    return await awaitable
                finally:
                    _RUNNING_LIMIT.reset(token)
        except TimeoutError as exc:
            if running is None or not running.timeout.expired():  # the implementation's own TimeoutError
                self._failed(plugin, hook, exc)
                return failed
            declared = running.declared
            why = f"its own limit, {declared:g} s" if declared is not None else f"{timeout:g} s ({variable})"
            self._failed(plugin, hook, exc, f"did not finish within {why}")
            return failed
        except Exception as exc:
            if _passes_through(exc, hook):
                raise
            self._failed(plugin, hook, exc)
            return failed

    def _failed(self, plugin: str, hook: str, exc: BaseException, why: str | None = None) -> None:
        """Log a failing implementation: the first time with its traceback, later quietly."""
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

    # -- calling -----------------------------------------------------------------------------

    def _first(self, hook: str, **kwargs: Any) -> Any:
        """Call a firstresult hook: the first non-``None`` answer (a failing implementation is skipped)."""
        return getattr(self.pm.hook, hook)(**kwargs)

    def _all(self, hook: str, **kwargs: Any) -> list[Any]:
        return cast("list[Any]", getattr(self.pm.hook, hook)(**kwargs))

    async def _all_async(self, hook: str, **kwargs: Any) -> list[Any]:
        results = []
        for result in self._all(hook, **kwargs):
            results.append(await result if inspect.isawaitable(result) else result)
        return results

    @staticmethod
    async def _resolve(value: T | Awaitable[T]) -> T:
        if inspect.isawaitable(value):
            return await value
        return value

    # lifecycle
    async def session_created(self, session: SessionContext) -> None:
        """``langacp_session_created``, once the session's configuration layers are in place (``layers_for``)."""
        from langacp.trust import open_layers

        await open_layers(session)
        await self._all_async("langacp_session_created", session=session)

    async def session_loaded(self, session: SessionContext) -> None:
        """``langacp_session_loaded``, once the session's configuration layers are in place."""
        from langacp.trust import open_layers

        await open_layers(session)
        await self._all_async("langacp_session_loaded", session=session)

    async def prompt_started(self, session: SessionContext, prompt: Sequence[Any]) -> None:
        await self._all_async("langacp_prompt_started", session=session, prompt=prompt)

    async def prompt_finished(self, session: SessionContext, stop_reason: StopReason, outcome: TurnOutcome) -> None:
        await self._all_async("langacp_prompt_finished", session=session, stop_reason=stop_reason, outcome=outcome)

    async def session_closed(self, session: SessionContext) -> None:
        await self._all_async("langacp_session_closed", session=session)

    # capabilities and auth
    def agent_capabilities(self, capabilities: AgentCapabilities) -> AgentCapabilities:
        self._all("langacp_agent_capabilities", capabilities=capabilities)
        return capabilities

    def auth_methods(self) -> list[Any]:
        return [m for methods in self._all("langacp_auth_methods") for m in methods or []]

    async def authenticate(self, method_id: str) -> bool | None:
        return _bool_or_none(await self._resolve(self._first("langacp_authenticate", method_id=method_id)))

    # per-session contributions
    async def session_middleware(self, session: SessionContext) -> list[Any]:
        return [m for ms in await self._all_async("langacp_session_middleware", session=session) for m in ms or []]

    async def session_tools(self, session: SessionContext) -> list[Any]:
        return [t for ts in await self._all_async("langacp_session_tools", session=session) for t in ts or []]

    def system_prompt_additions(self, session: SessionContext) -> list[str]:
        return [s for s in self._all("langacp_system_prompt", session=session) if s]

    # tool mapping
    def tool_kind(self, call: ToolCallInfo, session: SessionContext) -> ToolKind:
        """The plugins' kind, then the project's pin where it is riskier (:func:`langacp.trust.project_kind`).

        Asked once per call and session: the answer is kept on the (immutable) call, so its
        title, locations, start and result content (which each need the kind) do not ask again.
        """
        known = call.__dict__.get(_KIND_MEMO)
        if known is not None and known[0] is self and known[1] is session:
            return cast("ToolKind", known[2])
        from langacp.trust import project_kind

        kind = self._first("langacp_tool_kind", call=call, session=session) or "other"
        kind = project_kind(call.name, kind, session)
        object.__setattr__(call, _KIND_MEMO, (self, session, kind))
        return cast("ToolKind", kind)

    def tool_title(self, call: ToolCallInfo, session: SessionContext) -> str:
        return cast(str, self._first("langacp_tool_title", call=call, session=session) or call.name)

    def tool_locations(self, call: ToolCallInfo, session: SessionContext) -> list[ToolCallLocation]:
        return cast("list[ToolCallLocation]", self._first("langacp_tool_locations", call=call, session=session) or [])

    def tool_start_content(self, call: ToolCallInfo, session: SessionContext) -> list[Any]:
        return cast("list[Any]", self._first("langacp_tool_start_content", call=call, session=session) or [])

    def describe_tool(self, call: ToolCallInfo, session: SessionContext, *, content: bool = True) -> dict[str, Any]:
        """Title, kind, locations and start content of a tool call: what a client is shown.

        ``content=False`` leaves the start content out (its key too) without asking for it: for a
        call whose arguments are not known yet, from which a start content is derived.
        """
        described = {
            "title": self.tool_title(call, session),
            "kind": self.tool_kind(call, session),
            "locations": self.tool_locations(call, session) or None,
        }
        if content:
            described["content"] = self.tool_start_content(call, session) or None
        return described

    def tool_result_content(self, call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any]:
        return cast(
            "list[Any]", self._first("langacp_tool_result_content", call=call, result=result, session=session) or []
        )

    async def tool_starting(self, call: ToolCallInfo, session: SessionContext) -> None:
        """``langacp_tool_starting``: ``call`` is about to run (its checks and the permission policy passed)."""
        await self._all_async("langacp_tool_starting", call=call, session=session)

    async def tool_finished(self, call: ToolCallInfo, result: Any, session: SessionContext) -> None:
        """``langacp_tool_finished``: ``call`` ran and produced ``result`` (not reported yet)."""
        await self._all_async("langacp_tool_finished", call=call, result=result, session=session)

    def tool_updates(self, call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any]:
        """Extra session updates (a plan, …) a finished tool call produces."""
        found = self._all("langacp_tool_updates", call=call, result=result, session=session)
        return [u for updates in found for u in updates or []]

    # content mapping
    def prompt_block(self, block: ContentBlock, session: SessionContext) -> list[dict[str, Any]] | None:
        return cast("list[dict[str, Any]] | None", self._first("langacp_prompt_block", block=block, session=session))

    def output_block(self, block: dict[str, Any], session: SessionContext) -> list[Any]:
        return cast("list[Any]", self._first("langacp_output_block", block=block, session=session) or [])

    # permissions
    def permission_rules(self, call: ToolCallInfo, kind: ToolKind, session: SessionContext) -> list[PermissionRule]:
        """Every plugin's rules for a call (``langacp_permission_rules``); anything but a rule counts as ``ask``."""
        found = self._all("langacp_permission_rules", call=call, kind=kind, session=session)
        rules = [rule for answer in found for rule in answer or []]
        return [
            r if isinstance(r, PermissionRule) else PermissionRule("ask", source=f"invalid rule {r!r}") for r in rules
        ]

    def policy_verdict(self, call: ToolCallInfo, kind: ToolKind, session: SessionContext) -> PermissionVerdict:
        """The policy's own decision (``langacp_permission``); anything unexpected counts as ``"ask"``.

        Unlike other mappers, a policy that raises does not fall back to the core default
        (allow): it answers ``"ask"``, so the user is asked instead.
        """
        result = self._first("langacp_permission", call=call, kind=kind, session=session)
        if isinstance(result, PermissionVerdict) and result.decision in ("allow", "ask", "deny"):
            return result
        return PermissionVerdict(cast(PermissionDecision, result if result in ("allow", "ask", "deny") else "ask"))

    def permission_verdict(self, call: ToolCallInfo, kind: ToolKind, session: SessionContext) -> PermissionVerdict:
        """What the core enforces for a call: the plugins' rules combined with the policy.

        See :func:`langacp.types.combine_permission` (a matching deny rule wins, then a policy
        deny, then an ask rule, then an allow rule, then the policy).
        """
        rules = self.permission_rules(call, kind, session)
        return combine_permission(rules, self.policy_verdict(call, kind, session), call.name, kind)

    async def ask_permission_verdict(
        self, call: ToolCallInfo, kind: ToolKind, session: SessionContext
    ) -> PermissionVerdict:
        """The user's answer: ``"allow"``, or ``"deny"`` with a reason (also when asking failed)."""
        result = self._first("langacp_ask_permission", call=call, kind=kind, session=session)
        try:
            answer = await self._resolve(result) if result is not None else "deny"
        except PromptCancelled:
            raise
        except Exception:  # a failing permission prompt must not let the tool run
            log.exception("langacp: asking permission for %s failed; treating it as denied", call.name)
            return PermissionVerdict("deny", "the permission request failed")
        if isinstance(answer, PermissionVerdict):
            return answer if answer.decision == "allow" else PermissionVerdict("deny", answer.reason)
        return PermissionVerdict("allow") if answer == "allow" else PermissionVerdict("deny")

    def resume_interrupt(self, session: SessionContext, interrupts: Sequence[Any]) -> Awaitable[Any] | None:
        """The awaitable resume value a plugin offers, or ``None`` if no plugin answers."""
        result = self._first("langacp_resume_interrupt", session=session, interrupts=interrupts)
        return None if result is None else self._resolve(result)

    # modes, config, commands
    def session_modes(self, session: SessionContext) -> SessionModeState | None:
        return cast("SessionModeState | None", self._first("langacp_session_modes", session=session))

    async def set_mode(self, session: SessionContext, mode_id: str) -> bool | None:
        """Ask the plugins to switch modes; on success ``session.mode_id`` is ``mode_id`` (saved with the session)."""
        ok = _bool_or_none(await self._resolve(self._first("langacp_set_mode", session=session, mode_id=mode_id)))
        if ok:
            session.mode_id = mode_id
        return ok

    def config_options(self, session: SessionContext) -> list[Any]:
        return [o for opts in self._all("langacp_config_options", session=session) for o in opts or []]

    async def set_config_option(self, session: SessionContext, config_id: str, value: str | bool) -> bool | None:
        result = self._first("langacp_set_config_option", session=session, config_id=config_id, value=value)
        return _bool_or_none(await self._resolve(result))

    def available_commands(
        self, session: SessionContext, offered: tuple[SessionModeState | None, list[Any]] | None = None
    ) -> list[AvailableCommand]:
        """The slash commands on offer; ``offered``: the session's modes and config options, if the caller has them."""
        modes, options = offered if offered is not None else (self.session_modes(session), self.config_options(session))
        found = self._all("langacp_available_commands", session=session, modes=modes, config_options=options)
        return [c for cs in found for c in cs or []]

    async def run_command(self, session: SessionContext, name: str, argument: str) -> str | None:
        result = self._first("langacp_run_command", session=session, name=name, argument=argument)
        return None if result is None else cast("str | None", await self._resolve(result))

    # turns and errors
    def stop_reason(self, session: SessionContext, outcome: TurnOutcome) -> StopReason:
        return cast("StopReason", self._first("langacp_stop_reason", session=session, outcome=outcome) or "end_turn")

    def prompt_usage(self, session: SessionContext, outcome: TurnOutcome) -> Any | None:
        return self._first("langacp_prompt_usage", session=session, outcome=outcome)

    def map_error(self, error: BaseException, method: str) -> RequestError:
        from acp import RequestError

        result = self._first("langacp_map_error", error=error, method=method)
        if isinstance(result, RequestError):
            return result
        return RequestError.internal_error({"details": str(error) or type(error).__name__})


def _bool_or_none(value: object) -> bool | None:
    """A yes/no hook's answer; ``None`` (nobody answered, or the one who did failed) stays ``None``."""
    return None if value is None else bool(value)


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _hooks_of(pm: pluggy.PluginManager, plugin: object) -> list[str]:
    return sorted(c.name for c in pm.get_hookcallers(plugin) or [])


def load_plugins(*, blocked: Iterable[str] = (), enabled: Iterable[str] = (), autoload: bool | None = None) -> Plugins:
    """Build a plugin manager with the core defaults and every allowed entry-point plugin."""
    plugins = Plugins()
    plugins.load_entry_points(blocked=blocked, enabled=enabled, autoload=autoload)
    return plugins
