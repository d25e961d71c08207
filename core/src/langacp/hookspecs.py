"""The langacp plugin contract: every hook a plugin can implement, in one file.

A plugin is any object or module with functions named like these specs and decorated with
``langacp.hookimpl``; it is found through an entry point in group ``langacp``.

Each hook declares how langacp calls it where it is defined (``@hook(...)``, one
:class:`Hook` record in :data:`CONTRACT`); the plugin manager, the conformance kit and
``docs/hooks.md`` read that record.

* **Mappers** (``firstresult``): implementations are called one by one until one answers
  something other than ``None``. ``None`` means "not mine". The core's defaults are
  registered ``trylast``, so any installed plugin overrides them.
* **Collectors and notifications**: every implementation is called; collectors' lists are
  concatenated in call order.

Call order (so the winner between two plugins is deterministic): ``tryfirst``
implementations, then plain ones, then ``trylast`` ones (the core's defaults come last of
all, registered after every plugin). Within the ``tryfirst`` and plain tiers, plugins are
called in alphabetical order of their entry-point name; within ``trylast``, in reverse.

Hooks marked *async-capable* may be ``async def`` or return an awaitable; langacp awaits it
(for a mapper, each implementation's in turn: an answer is what the awaitable gives). Every
other hook is called synchronously on the event loop: keep it fast (a mapper is called once
per tool call or content block, not per token); an ``async def`` implementation of one is
refused when the plugin loads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy

from langacp.types import PermissionRule, PermissionVerdict

if TYPE_CHECKING:
    from collections.abc import Awaitable, Sequence

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
    from langacp.types import (
        PermissionDecision,
        Question,
        SessionContext,
        ToolCallInfo,
        TurnOutcome,
    )

PROJECT = "langacp"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

HOOK_TIMEOUT = "LANGACP_HOOK_TIMEOUT"
SESSION_TOOLS_TIMEOUT = "LANGACP_SESSION_TOOLS_TIMEOUT"
TIME_LIMITS = {HOOK_TIMEOUT: 60.0, SESSION_TOOLS_TIMEOUT: 300.0}
"""The variables that set the time limits on hooks' awaitables, with their defaults in seconds."""


@dataclass(frozen=True)
class Hook:
    """How langacp calls one hook."""

    name: str
    firstresult: bool = False
    """A mapper: the first answer other than ``None`` wins (``None``: not mine)."""
    awaited: bool = False
    """Async-capable: an implementation may be ``async def`` or return an awaitable, which langacp awaits."""
    limit: str | None = None
    """The variable (in :data:`TIME_LIMITS`) limiting its awaitables; ``None``: synchronous, or waits for a person."""
    answering: bool = False
    """It answers a client's request: an ``acp.RequestError`` it raises is that request's JSON-RPC error."""
    failed: Any = None
    """What a failing implementation answers: ``None`` (skipped) unless failing must not loosen anything."""


CONTRACT: dict[str, Hook] = {}
"""Every hook of the contract, by name, in the order of this file."""

F = TypeVar("F", bound=Callable[..., Any])


def hook(
    *,
    firstresult: bool = False,
    awaited: bool = False,
    limit: str | None = HOOK_TIMEOUT,
    answering: bool = False,
    failed: Any = None,
) -> Callable[[F], F]:
    """Declare a hook: its :class:`Hook` record in :data:`CONTRACT`, and its pluggy hookspec."""

    def declare(function: F) -> F:
        name = function.__name__
        CONTRACT[name] = Hook(name, firstresult, awaited, limit if awaited else None, answering, failed)
        # pluggy stops at the first answer it is given, but an awaitable's answer is known only
        # once it is awaited: the plugin manager finds the first answer of an async mapper itself.
        return hookspec(firstresult=firstresult and not awaited)(function)

    return declare


# --------------------------------------------------------------------------------------------
# Session lifecycle (notifications; async-capable)
# --------------------------------------------------------------------------------------------


@hook(awaited=True)
def langacp_session_created(session: SessionContext) -> Awaitable[None] | None:
    """A session was created by ``session/new`` (or fork); async-capable."""


@hook(awaited=True)
def langacp_session_loaded(session: SessionContext) -> Awaitable[None] | None:
    """A stored session was restored by ``session/load`` or resume; async-capable."""


@hook(awaited=True)
def langacp_prompt_started(session: SessionContext, prompt: Sequence[Any]) -> Awaitable[None] | None:
    """A ``session/prompt`` turn starts; ``prompt`` holds the ACP content blocks. Async-capable."""


@hook(awaited=True)
def langacp_prompt_finished(
    session: SessionContext, stop_reason: StopReason, outcome: TurnOutcome
) -> Awaitable[None] | None:
    """A turn ended (also after a cancel or an error); async-capable."""


@hook(awaited=True)
def langacp_session_closed(session: SessionContext) -> Awaitable[None] | None:
    """A session is closed, by ``session/close`` or because the agent exits. Async-capable.

    Free what the session holds (subprocesses, connections); stored data stays.
    """


# --------------------------------------------------------------------------------------------
# Agent capabilities and authentication
# --------------------------------------------------------------------------------------------


@hook()
def langacp_agent_capabilities(capabilities: AgentCapabilities) -> None:
    """Adjust the capabilities answered to ``initialize``, in place.

    The core fills in what it supports; a plugin turns on what it adds (for example
    ``capabilities.prompt_capabilities.image = True``). Must be cheap: ``initialize`` is on the
    editor's start-up path.
    """


@hook()
def langacp_auth_methods() -> list[Any] | None:
    """Return ACP auth methods (``acp.schema`` auth method models) this plugin offers."""


@hook(firstresult=True, awaited=True, limit=None, answering=True)
def langacp_authenticate(method_id: str) -> Awaitable[bool] | bool | None:
    """Handle ``authenticate`` for ``method_id``: ``True`` on success, ``False`` to refuse.

    ``None``: not my method. Async-capable: may return an awaitable of a bool.
    """


# --------------------------------------------------------------------------------------------
# What a session's agent is built with (collectors; async-capable)
# --------------------------------------------------------------------------------------------


@hook(awaited=True)
def langacp_session_middleware(session: SessionContext) -> Sequence[Any] | Awaitable[Sequence[Any]] | None:
    """Return LangChain ``AgentMiddleware`` instances to add to this session's agent.

    Only agents built by a per-session factory receive them; a precompiled graph cannot.
    Async-capable.
    """


@hook(awaited=True, limit=SESSION_TOOLS_TIMEOUT)
def langacp_session_tools(session: SessionContext) -> Sequence[Any] | Awaitable[Sequence[Any]] | None:
    """Return LangChain tools to add to this session's agent (factory targets). Async-capable."""


@hook()
def langacp_system_prompt(session: SessionContext) -> str | None:
    """Return text to append to this session's system prompt (factory targets), or ``None``."""


# --------------------------------------------------------------------------------------------
# Tool calls as the editor shows them (mappers)
# --------------------------------------------------------------------------------------------


@hook(firstresult=True)
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> ToolKind | None:
    """Return the ACP tool kind (``read``, ``edit``, ``execute``, …) of a tool call."""


@hook(firstresult=True)
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str | None:
    """Return the title a person reads for a tool call (e.g. ``Read README.md``)."""


@hook(firstresult=True)
def langacp_tool_locations(call: ToolCallInfo, session: SessionContext) -> list[ToolCallLocation] | None:
    """Return the file locations a tool call touches (absolute paths), ``[]`` for none."""


@hook(firstresult=True)
def langacp_tool_start_content(call: ToolCallInfo, session: SessionContext) -> list[Any] | None:
    """Return ACP tool-call content to show before a tool runs (e.g. the diff an edit proposes).

    Sent with the ``tool_call`` once its arguments are known and in the permission request.
    """


@hook(firstresult=True)
def langacp_tool_result_content(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any] | None:
    """Return ACP tool-call content (``acp.schema`` content / diff / terminal models) for a result.

    ``result`` is the LangChain ``ToolMessage`` the tool produced.
    """


@hook(awaited=True)
def langacp_tool_starting(call: ToolCallInfo, session: SessionContext) -> Awaitable[None] | None:
    """A tool call is about to run: its checks and the permission policy let it through (async-capable).

    Called by the core's tool guard (factory targets) and the library's ``ACPToolMiddleware``
    right before the tool runs, after the call was reported ``in_progress``; the tool runs once
    every implementation has returned (or its awaitable finished). For work a tool's result
    needs done first, such as reading the file an edit will change for the result's diff: a
    hook, not a ``wrap_tool_call`` middleware, so a call that is not yours costs one function call.
    """


@hook(awaited=True)
def langacp_tool_finished(call: ToolCallInfo, result: Any, session: SessionContext) -> Awaitable[None] | None:
    """A tool call ran and produced ``result`` (async-capable).

    Called by the core's tool guard (factory targets) and the library's ``ACPToolMiddleware``
    right after the tool ran (``result`` is its ``ToolMessage``, or a ``Command``), before the
    result is reported: ``langacp_tool_result_content`` is asked once every implementation has
    returned (or its awaitable finished). For slow work the result's content needs, such as
    reading the file an edit changed, off the event loop. A call that is not yours should cost
    one function call: return ``None``.
    """


@hook()
def langacp_tool_updates(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any] | None:
    """Return extra ACP session updates a finished tool call produces (e.g. a ``plan``).

    ``result`` is the LangChain ``ToolMessage``. Called when the tool finishes, after its
    ``tool_call_update``, and again for each tool call ``session/load`` replays; every
    implementation's updates are sent, in call order.
    """


# --------------------------------------------------------------------------------------------
# Content mapping, both directions (mappers)
# --------------------------------------------------------------------------------------------


@hook(firstresult=True)
def langacp_prompt_block(block: ContentBlock, session: SessionContext) -> list[dict[str, Any]] | None:
    """Map one ACP prompt block to LangChain standard content blocks (``{"type": "text", …}``).

    ``None``: not mine. If no plugin maps a block, the prompt is refused with -32602.
    """


@hook(firstresult=True)
def langacp_output_block(block: dict[str, Any], session: SessionContext) -> list[Any] | None:
    """Map one LangChain output content block to ACP session updates.

    ``block`` is a standard content block from ``AIMessageChunk.content_blocks`` (text,
    reasoning, image, …; tool-call blocks are handled by the core). Return a list of
    ``acp.schema`` session-update models (``[]`` to drop the block), or ``None``: not mine.
    Streamed text and reasoning tokens waiting to be sent are joined first, so a block may
    hold many tokens; it is called once per message sent, not per token. Keep it fast.
    """


# --------------------------------------------------------------------------------------------
# Permissions (mapper + async-capable request)
# --------------------------------------------------------------------------------------------


@hook(firstresult=True, failed=PermissionVerdict("ask"))
def langacp_permission(
    call: ToolCallInfo, kind: ToolKind, session: SessionContext
) -> PermissionDecision | PermissionVerdict | None:
    """The permission policy: whether a tool call may run, ``"allow"``, ``"ask"`` or ``"deny"``.

    Enforced before the tool runs for factory targets (the core's tool guard middleware),
    together with the rules of ``langacp_permission_rules``. A ``PermissionVerdict`` carries
    the reason of a ``"deny"`` to the model. Core default: ``"allow"``.
    """


@hook(failed=(PermissionRule("ask", source="a plugin whose rules failed"),))
def langacp_permission_rules(
    call: ToolCallInfo, kind: ToolKind, session: SessionContext
) -> list[PermissionRule] | None:
    """Return ``PermissionRule``s for this tool call; every plugin's rules count (not firstresult).

    The core enforces them, whoever decides the policy: a matching ``deny`` rule wins over
    everything, the policy's (``langacp_permission``) ``deny`` is final, then a matching
    ``ask`` rule asks, then a matching ``allow`` rule allows; otherwise the policy decides.
    An implementation that raises counts as an ``ask`` rule.
    """


@hook(firstresult=True, awaited=True, limit=None, failed=PermissionVerdict("deny", "the permission request failed"))
def langacp_ask_permission(
    call: ToolCallInfo, kind: ToolKind, session: SessionContext
) -> Awaitable[PermissionDecision | PermissionVerdict] | None:
    """Ask the user about a tool call the policy said ``"ask"`` for.

    Return an awaitable resolving to ``"allow"`` or ``"deny"``, or to a ``PermissionVerdict``
    with the reason of a denial (``None``: not mine). The
    core's default sends ``session/request_permission`` with allow-once / reject-once.
    Raise ``langacp.types.PromptCancelled`` if the client answered ``cancelled``.
    """


@hook(firstresult=True, awaited=True, limit=None)
def langacp_resume_interrupt(
    session: SessionContext, interrupts: Sequence[Any], prompt: Sequence[Any] | None
) -> Awaitable[Any] | None:
    """Answer LangGraph interrupts (e.g. ``HumanInTheLoopMiddleware``) that stopped a turn.

    Return an awaitable resolving to the value to resume the graph with
    (``Command(resume=value)``), or ``None``: not mine. If nobody answers, the turn ends and
    the user is told why. The awaitable may raise ``langacp.types.TurnPaused`` to end the turn
    with the graph still paused. ``prompt`` is ``None`` while a turn runs; at the start of a turn
    whose thread was left paused, the interrupts are offered with the turn's ``prompt`` (ACP
    content blocks), which may answer them (``None`` from every plugin: the prompt starts a new run).
    """


@hook(firstresult=True)
def langacp_interrupt_question(value: Any, session: SessionContext) -> Question | None:
    """Map an interrupt's value (``interrupt(value)`` in a graph) to the ``Question`` the user is asked.

    ``None``: not mine. langacp-elicitation's own mapping (strings, question / options dicts,
    JSON schemas, pydantic models, anything else as JSON) comes last: a plugin overrides it for
    its own payloads.
    """


# --------------------------------------------------------------------------------------------
# Modes, config options, slash commands
# --------------------------------------------------------------------------------------------


@hook(firstresult=True)
def langacp_session_modes(session: SessionContext) -> SessionModeState | None:
    """Return the modes offered to this session and the current one, or ``None`` (no modes)."""


@hook(firstresult=True, awaited=True, answering=True)
def langacp_set_mode(session: SessionContext, mode_id: str) -> Awaitable[bool] | bool | None:
    """Switch the session to ``mode_id``: ``True`` done, ``False`` unknown mode, ``None`` not mine.

    Async-capable. The core sends ``current_mode_update`` on success.
    """


@hook()
def langacp_config_options(session: SessionContext) -> list[Any] | None:
    """Return ``acp.schema`` session config options (select / boolean) for this session."""


@hook(firstresult=True, awaited=True, answering=True)
def langacp_set_config_option(
    session: SessionContext, config_id: str, value: str | bool
) -> Awaitable[bool] | bool | None:
    """Set a config option: ``True`` done, ``False`` invalid value, ``None`` not mine. Async-capable."""


@hook()
def langacp_config_tables() -> Sequence[ConfigTable] | None:
    """The configuration-file tables this plugin reads (``langacp.api.ConfigTable``): checked by the core."""


@hook()
def langacp_available_commands(
    session: SessionContext, modes: SessionModeState | None, config_options: list[Any]
) -> list[AvailableCommand] | None:
    """Return slash commands (``acp.schema.AvailableCommand``) this plugin offers.

    ``modes`` and ``config_options`` are the session's, as the core has just gathered them
    (``langacp_session_modes``, ``langacp_config_options``): read them rather than asking
    those hooks again. Declare only the arguments you use. A command that is the same for
    every session can be built once and returned each time.
    """


@hook(firstresult=True, awaited=True, limit=None, answering=True)
def langacp_run_command(session: SessionContext, name: str, argument: str) -> Awaitable[str | None] | str | None:
    """Run slash command ``/name argument``; return the text to show (or an awaitable of it).

    ``None``: not my command. Called for every prompt that starts with ``/name`` (a name of
    letters, digits, ``_ - . :``), offered or not; if no plugin answers, the prompt goes to the model.
    """


# --------------------------------------------------------------------------------------------
# Ending turns and errors (mappers)
# --------------------------------------------------------------------------------------------


@hook(firstresult=True)
def langacp_stop_reason(session: SessionContext, outcome: TurnOutcome) -> StopReason | None:
    """Return the ACP stop reason for a finished turn (core default: ``end_turn`` / ``cancelled``)."""


@hook(firstresult=True)
def langacp_prompt_usage(session: SessionContext, outcome: TurnOutcome) -> Any | None:
    """Return the ``usage`` of the prompt response (``acp.schema.Usage``), or ``None`` for none.

    ``outcome.usage`` holds the token totals of the turn's model calls. Called before the
    turn's updates are flushed, so an update sent from here precedes the response.
    """


@hook(firstresult=True)
def langacp_map_error(error: BaseException, method: str) -> RequestError | None:
    """Map an exception raised while serving ``method`` to a JSON-RPC error (``acp.RequestError``)."""


HOOK_NAMES: Sequence[str] = tuple(CONTRACT)
"""Names of every hook in this contract."""
