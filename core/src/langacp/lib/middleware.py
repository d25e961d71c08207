"""LangChain middleware that speak ACP, for an agent you built with ``create_agent`` in your own ACP agent.

Each takes the SDK's client connection it sends through and finds the session of a graph run
from its config (see :func:`~langacp.lib.sessions.session_id_from`); the session must have
been opened with :func:`~langacp.lib.open_session`. They run the same code as
``langacp serve``: the installed plugins' hooks, the core's tool guard steps, the turn reporter.

Put them in this order: ``[ACPSessionMiddleware, ACPModeMiddleware, ACPPermissionMiddleware,
ACPToolMiddleware]`` (the permission check before a tool is reported running, as the server does).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, ToolMessage

from langacp.lib.sessions import LibrarySession, current_turn, get_session, session_id_from
from langacp.middleware import permission_refusal, refused_message, run_contained, tool_check
from langacp.types import ToolCallInfo, model_call_messages

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse, ToolCallRequest
    from langgraph.runtime import Runtime
    from langgraph.types import Command

__all__ = [
    "SNAPSHOT_METHOD",
    "ACPModeMiddleware",
    "ACPPermissionMiddleware",
    "ACPSessionMiddleware",
    "ACPSessionState",
    "ACPToolMiddleware",
    "Snapshots",
]

SNAPSHOT_METHOD = "langacp/state_snapshot"
"""Extension notification carrying a state snapshot (``_langacp/state_snapshot`` on the wire)."""

Snapshots = Literal["initial", "final", "all", "none"]
ToolHandler = Callable[["ToolCallRequest"], Awaitable["ToolMessage | Command[Any]"]]
ModelHandler = Callable[["ModelRequest[Any]"], Awaitable["ModelResponse[Any]"]]


class ACPSessionState(AgentState):  # type: ignore[type-arg]
    """The agent state with the number of turns the session ran."""

    acp_turns: NotRequired[int]


class _SessionBound(AgentMiddleware):  # type: ignore[type-arg]
    """Finds the library session of the running graph."""

    def __init__(self, conn: Any) -> None:
        super().__init__()
        self.conn = conn

    def session(self, runtime: Any = None) -> LibrarySession:
        from acp import RequestError

        session_id = session_id_from(context=getattr(runtime, "context", None))
        if session_id is None:
            raise RequestError.invalid_params(
                {"details": "no ACP session id: pass configurable.thread_id (or session_id) in the config"}
            )
        return get_session(self.conn, session_id)


class ACPSessionMiddleware(_SessionBound):
    """The session's turn: counts turns in state (``acp_turns``) and sends state snapshots.

    ``snapshots``: ``"initial"`` (before the turn), ``"final"`` (after it), ``"all"`` (both,
    and after every model call) or ``"none"``. Each is an extension notification
    ``_langacp/state_snapshot`` with params ``{"sessionId", "kind", "turn", "state"}``; see
    ``docs/library.md``. It also reports every model response to the turn (usage, finish
    reason: what the stop reason is computed from) and runs the model-call wrappers of the
    middleware plugins contribute (``langacp_session_middleware``), except those that apply the
    session's mode (``langacp_role = "mode"``), which :class:`ACPModeMiddleware` runs.
    """

    state_schema = ACPSessionState

    def __init__(self, conn: Any, *, snapshots: Snapshots = "none") -> None:
        super().__init__(conn)
        if snapshots not in ("initial", "final", "all", "none"):
            raise ValueError(f"snapshots must be initial, final, all or none, not {snapshots!r}")
        self.snapshots = snapshots

    @property
    def name(self) -> str:
        return "acp_session"

    async def abefore_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        session = self.session(runtime)
        current_turn(session)
        turns = int(state.get("acp_turns") or 0) + 1
        if self.snapshots in ("initial", "all"):
            await self._snapshot(session, "initial", turns, {**state, "acp_turns": turns})
        return {"acp_turns": turns}

    async def aafter_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        if self.snapshots in ("final", "all"):
            await self._snapshot(self.session(runtime), "final", int(state.get("acp_turns") or 0), state)
        return None

    async def awrap_model_call(self, request: ModelRequest[Any], handler: ModelHandler) -> ModelResponse[Any]:
        # Done here rather than in an after-model hook: such a hook is one more graph step per call.
        session = self.session(request.runtime)
        wrappers = [m for m in session.middleware if not _is_mode(m)]
        response = await _chain_model(wrappers, request, handler)
        produced = model_call_messages(response)
        for message in produced:
            if isinstance(message, AIMessage):
                current_turn(session).on_model_message(message, announce=False)  # ACPToolMiddleware announces
        if self.snapshots == "all":
            state: dict[str, Any] = dict(request.state)
            state["messages"] = [*(state.get("messages") or []), *produced]
            await self._snapshot(session, "model", int(state.get("acp_turns") or 0), state)
        return response

    async def _snapshot(self, session: LibrarySession, kind: str, turn: int, state: Any) -> None:
        from langacp.lib.mappers import serialize_state

        await session.flush()  # the snapshot follows the updates it reflects
        params = {"sessionId": session.session_id, "kind": kind, "turn": turn, "state": serialize_state(state)}
        await self.conn.ext_notification(SNAPSHOT_METHOD, params)


class ACPToolMiddleware(_SessionBound):
    """Reports tool calls to the client: ``tool_call`` with kind, title, locations and start
    content, ``in_progress``, then ``tool_call_update`` with the result's content, all from the
    same hooks as ``langacp serve``. A tool that raises fails its call, not the turn.

    ``report_start=False`` drops the ``tool_call`` and ``in_progress`` events (the result
    still names the call); ``report_result=False`` drops the result events. Results that did not
    come from a tool (a call the permission policy refused) are reported before the next model
    call, as the server reports them when the tools step ends. The tool-call
    wrappers of the middleware plugins contribute (e.g. langacp-tools' diff capture) run inside.
    """

    def __init__(self, conn: Any, *, report_start: bool = True, report_result: bool = True) -> None:
        super().__init__(conn)
        self.report_start = report_start
        self.report_result = report_result

    @property
    def name(self) -> str:
        return "acp_tools"

    async def awrap_model_call(self, request: ModelRequest[Any], handler: ModelHandler) -> ModelResponse[Any]:
        # Done here rather than in before/after-model hooks: each such hook is one more graph step.
        turn = current_turn(self.session(request.runtime))
        if self.report_result:
            # Results that never went through a tool (a refused call, an unknown tool) are in the state.
            messages = request.state.get("messages") or []
            start = len(messages)
            while start > 0 and isinstance(messages[start - 1], ToolMessage):
                start -= 1
            for message in messages[start:]:
                if isinstance(message, ToolMessage):
                    turn.finish_tool(message)
        response = await handler(request)
        if self.report_start:
            for message in model_call_messages(response):  # every call of the response, before any runs
                for tool_call in message.tool_calls if isinstance(message, AIMessage) else []:
                    turn.announce(tool_call.get("id") or "", tool_call["name"], tool_call.get("args") or {})
        return response

    async def awrap_tool_call(self, request: ToolCallRequest, handler: ToolHandler) -> ToolMessage | Command[Any]:
        session = self.session(request.runtime)
        call = ToolCallInfo.from_tool_call(request.tool_call)
        turn = current_turn(session)
        if self.report_start:
            turn.tool_started(call.tool_call_id, call.name, call.args)
        await session.plugins.tool_starting(call, session.context)
        wrappers = [m for m in session.middleware if not _is_mode(m)]
        result = await run_contained(call, lambda r: _chain_tool(wrappers, r, handler), request)
        await session.plugins.tool_finished(call, result, session.context)
        if self.report_result and isinstance(result, ToolMessage):
            turn.finish_tool(result)
        return result


class ACPPermissionMiddleware(_SessionBound):
    """The permission policy before every tool call: ``langacp_permission``, then for ``"ask"``
    a ``session/request_permission`` (``langacp_ask_permission``). With langacp-permissions
    installed that is its policy, remembered answers and scopes; without, the core's default
    (allow everything). A refused call does not run; the model is told why and re-plans.

    ``interrupt=True`` is the human-in-the-loop form instead: a call the policy asks about
    interrupts the graph with a ``HumanInTheLoopMiddleware``-shaped request
    (``action_requests`` / ``review_configs``); resume it with the value of
    :func:`~langacp.lib.resume_interrupts` (approve, edit or reject decisions; a rejection's
    message goes to the model, which re-plans).
    """

    def __init__(self, conn: Any, *, interrupt: bool = False) -> None:
        super().__init__(conn)
        self.interrupt = interrupt

    @property
    def name(self) -> str:
        return "acp_permissions"

    async def awrap_tool_call(self, request: ToolCallRequest, handler: ToolHandler) -> ToolMessage | Command[Any]:
        session = self.session(request.runtime)
        call = ToolCallInfo.from_tool_call(request.tool_call)
        if self.interrupt:
            problem = await tool_check(call, getattr(request, "tool", None))
            if problem is not None:
                return refused_message(call, problem)
            kind = session.plugins.tool_kind(call, session.context)
            verdict = session.plugins.permission_verdict(call, kind, session.context)
            if verdict.decision == "deny":
                return refused_message(call, verdict.reason or "the permission policy denied it")
            if verdict.decision == "ask":
                return await _reviewed(call, request, handler, session)
            return await handler(request)
        refused = await permission_refusal(session.plugins, session.context, call, getattr(request, "tool", None))
        if refused is not None:
            return refused
        return await handler(request)


async def _reviewed(
    call: ToolCallInfo, request: ToolCallRequest, handler: ToolHandler, session: LibrarySession
) -> ToolMessage | Command[Any]:
    """Interrupt for a human decision on ``call`` and act on it (approve, edit, reject)."""
    from langgraph.types import interrupt

    described = session.plugins.describe_tool(call, session.context)
    answer = interrupt(
        {
            "action_requests": [
                {"name": call.name, "args": call.args, "description": f"{described['title']}\n{json.dumps(call.args)}"}
            ],
            "review_configs": [{"action_name": call.name, "allowed_decisions": ["approve", "edit", "reject"]}],
        }
    )
    decisions = answer.get("decisions") if isinstance(answer, dict) else None
    decision = decisions[0] if isinstance(decisions, list) and decisions else {}
    kind = decision.get("type") if isinstance(decision, dict) else None
    if kind == "approve":
        return await handler(request)
    if kind == "edit":
        edited = decision.get("edited_action") or {}
        args: dict[str, Any] = edited["args"] if isinstance(edited.get("args"), dict) else call.args
        return await handler(request.override(tool_call={**request.tool_call, "args": args}))
    message = decision.get("message") if isinstance(decision, dict) else None
    return ToolMessage(
        content=str(message or f"The call to {call.name} was rejected. Do not retry it unchanged."),
        tool_call_id=call.tool_call_id,
        name=call.name,
        status="error",
    )


MODE_ROLE = "mode"
"""A contributed middleware whose ``langacp_role`` attribute is this applies the session's mode
(its prompt, model, thought level): :class:`ACPModeMiddleware` runs it, not the session middleware."""


def _is_mode(middleware: Any) -> bool:
    return getattr(middleware, "langacp_role", None) == MODE_ROLE


class ACPModeMiddleware(_SessionBound):
    """Session modes: the current mode's system prompt, model and thought level on every model call.

    Runs the contributed middleware marked ``langacp_role = "mode"`` (langacp-modes'; without a
    modes plugin, no modes are offered and this passes calls through). The mode's allowed tools
    and permission requirement are enforced by :class:`ACPPermissionMiddleware` (through the
    permission hooks). Switch modes with
    :meth:`set_mode` (your agent's ``set_session_mode``); it sends ``current_mode_update``.
    """

    @property
    def name(self) -> str:
        return "acp_modes"

    async def awrap_model_call(self, request: ModelRequest[Any], handler: ModelHandler) -> ModelResponse[Any]:
        wrappers = [m for m in self.session(request.runtime).middleware if _is_mode(m)]
        return await _chain_model(wrappers, request, handler)

    def modes(self, session_id: str) -> Any:
        """The session's ``SessionModeState`` for a ``session/new`` response (``None``: no modes).

        A copy of its own: plugins may share one state among the sessions of a configuration.
        """
        session = get_session(self.conn, session_id)
        state = session.plugins.session_modes(session.context)
        return state.model_copy(deep=True) if state is not None else None

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        """Switch the session to ``mode_id`` (-32602 for an unknown mode, -32601 without modes)."""
        from langacp.operations import change_mode

        session = get_session(self.conn, session_id)
        await change_mode(session.plugins, session.context, session.sink, mode_id)


def _overrides(middleware: Any, hook: str) -> bool:
    return getattr(type(middleware), hook, None) is not getattr(AgentMiddleware, hook, None)


async def _chain_model(wrappers: list[Any], request: ModelRequest[Any], handler: ModelHandler) -> ModelResponse[Any]:
    """Run ``handler`` inside the ``awrap_model_call`` of each of ``wrappers`` (first is outermost)."""
    active = [m for m in wrappers if _overrides(m, "awrap_model_call")]
    if not active:
        return await handler(request)
    head, rest = active[0], active[1:]
    response: ModelResponse[Any] = await head.awrap_model_call(request, lambda r: _chain_model(rest, r, handler))
    return response


async def _chain_tool(
    wrappers: list[Any], request: ToolCallRequest, handler: ToolHandler
) -> ToolMessage | Command[Any]:
    """Run ``handler`` inside the ``awrap_tool_call`` of each of ``wrappers`` (first is outermost)."""
    active = [m for m in wrappers if _overrides(m, "awrap_tool_call")]
    if not active:
        return await handler(request)
    head, rest = active[0], active[1:]
    result: ToolMessage | Command[Any] = await head.awrap_tool_call(request, lambda r: _chain_tool(rest, r, handler))
    return result
