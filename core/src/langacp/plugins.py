"""The plugin manager's typed facade: one method per hook, so a type checker sees the contract.

Loading, blocking and listing plugins: :mod:`langacp.plugin_loading`.

Isolation (:mod:`langacp.hook_guard`): every hook implementation is wrapped before it is
registered; one that fails is logged and skipped (a mapper falls through to the next plugin
and, at the end, to the core's ``trylast`` default). An async-capable hook's implementations
are awaited one after the other, within the time limit its record names
(:data:`langacp.hookspecs.CONTRACT`; :func:`hook_time_limit` moves it), a mapper's up to the
first answer its awaitable gives. The limit is the awaiting request's own: a slow hook holds
up its session, never another one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from langacp.hook_guard import hook_time_limit
from langacp.plugin_loading import (
    ENTRY_POINT_GROUP,
    PluginNameError,
    PluginRecord,
    PluginSet,
    canonical_name,
    driver_records,
    parse_plugin_options,
)
from langacp.trust import open_layers, project_kind
from langacp.types import (
    PermissionDecision,
    PermissionRule,
    PermissionVerdict,
    PromptCancelled,
    Question,
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

    from langacp.config_tables import ConfigTable

__all__ = [
    "ENTRY_POINT_GROUP",
    "PluginNameError",
    "PluginRecord",
    "Plugins",
    "canonical_name",
    "driver_records",
    "hook_time_limit",
    "load_plugins",
    "parse_plugin_options",
]

log = logging.getLogger("langacp.plugins")

_KIND_MEMO = "_langacp_kind"
"""Attribute of a ``ToolCallInfo`` holding ``(plugins, session, kind)`` once its kind was asked."""


class Plugins(PluginSet):
    """The plugin manager and a typed facade over its hooks.

    The rest of langacp calls these methods, never ``pm.hook.*`` directly, so a type checker
    sees the contract. Every hook implementation is isolated (see the module docstring): a
    broken plugin cannot take a session down.
    """

    # -- calling -----------------------------------------------------------------------------

    def _first(self, hook: str, **kwargs: Any) -> Any:
        """Call a synchronous mapper: the first answer other than ``None`` (a failing implementation is skipped)."""
        return self.direct.call(hook, kwargs)

    def _all(self, hook: str, **kwargs: Any) -> list[Any]:
        return cast("list[Any]", self.direct.call(hook, kwargs))

    async def _all_async(self, hook: str, /, first: bool = False, **kwargs: Any) -> list[Any]:
        """An async-capable hook's answers, each implementation awaited before the next one is called.

        Its wrappers are coroutine functions (:mod:`langacp.hook_guard`): pluggy hands back
        coroutines that have not started. ``first``: a mapper's, up to the first answer other than ``None``.
        """
        pending = self._all(hook, **kwargs)
        answers = []
        try:
            for answer in pending:
                answers.append(await answer)
                if first and answers[-1] is not None:
                    break
        finally:
            for answer in pending:
                answer.close()  # the ones never started (after an answer, or after an exception that passed through)
        return answers

    async def _first_async(self, hook: str, **kwargs: Any) -> Any:
        answers = await self._all_async(hook, first=True, **kwargs)
        return answers[-1] if answers else None

    # lifecycle
    async def session_created(self, session: SessionContext) -> None:
        """``langacp_session_created``, once the session's configuration layers are in place (``layers_for``)."""
        await open_layers(session)
        await self._all_async("langacp_session_created", session=session)

    async def session_loaded(self, session: SessionContext) -> None:
        """``langacp_session_loaded``, once the session's configuration layers are in place."""
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
        return _bool_or_none(await self._first_async("langacp_authenticate", method_id=method_id))

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
        try:
            answer = await self._first_async("langacp_ask_permission", call=call, kind=kind, session=session)
        except PromptCancelled:
            raise
        except Exception:  # a failing permission prompt must not let the tool run
            log.exception("langacp: asking permission for %s failed; treating it as denied", call.name)
            return PermissionVerdict("deny", "the permission request failed")
        if isinstance(answer, PermissionVerdict):
            return answer if answer.decision == "allow" else PermissionVerdict("deny", answer.reason)
        return PermissionVerdict("allow") if answer == "allow" else PermissionVerdict("deny")

    async def resume_interrupt(
        self, session: SessionContext, interrupts: Sequence[Any], prompt: Sequence[Any] | None = None
    ) -> Any | None:
        """The value to resume the graph with, or ``None`` if no plugin answers."""
        found = await self._first_async(
            "langacp_resume_interrupt", session=session, interrupts=interrupts, prompt=prompt
        )
        return found

    def interrupt_question(self, value: Any, session: SessionContext) -> Question | None:
        """The question an interrupt's ``value`` asks, as a plugin maps it, or ``None``."""
        return cast("Question | None", self._first("langacp_interrupt_question", value=value, session=session))

    # modes, config, commands
    def session_modes(self, session: SessionContext) -> SessionModeState | None:
        return cast("SessionModeState | None", self._first("langacp_session_modes", session=session))

    async def set_mode(self, session: SessionContext, mode_id: str) -> bool | None:
        """Ask the plugins to switch modes; on success ``session.mode_id`` is ``mode_id`` (saved with the session)."""
        ok = _bool_or_none(await self._first_async("langacp_set_mode", session=session, mode_id=mode_id))
        if ok:
            session.mode_id = mode_id
        return ok

    def config_options(self, session: SessionContext) -> list[Any]:
        return [o for opts in self._all("langacp_config_options", session=session) for o in opts or []]

    def config_tables(self) -> list[ConfigTable]:
        """Every plugin's configuration tables (``langacp_config_tables``)."""
        return [t for tables in self._all("langacp_config_tables") for t in tables or []]

    async def set_config_option(self, session: SessionContext, config_id: str, value: str | bool) -> bool | None:
        result = await self._first_async("langacp_set_config_option", session=session, config_id=config_id, value=value)
        return _bool_or_none(result)

    def available_commands(
        self, session: SessionContext, offered: tuple[SessionModeState | None, list[Any]] | None = None
    ) -> list[AvailableCommand]:
        """The slash commands on offer; ``offered``: the session's modes and config options, if the caller has them."""
        modes, options = offered if offered is not None else (self.session_modes(session), self.config_options(session))
        found = self._all("langacp_available_commands", session=session, modes=modes, config_options=options)
        return [c for cs in found for c in cs or []]

    async def run_command(self, session: SessionContext, name: str, argument: str) -> str | None:
        result = await self._first_async("langacp_run_command", session=session, name=name, argument=argument)
        return cast("str | None", result)

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


def load_plugins(*, blocked: Iterable[str] = (), enabled: Iterable[str] = (), autoload: bool | None = None) -> Plugins:
    """Build a plugin manager with the core defaults and every allowed entry-point plugin."""
    plugins = Plugins()
    plugins.load_entry_points(blocked=blocked, enabled=enabled, autoload=autoload)
    return plugins
