"""The tool guard: the core's middleware around every tool call of a factory-built agent.

It enforces the permission policy (``langacp_permission`` / ``langacp_ask_permission``)
before a tool runs, then tells the plugins the call starts (``langacp_tool_starting``) and,
once it ran, that it finished (``langacp_tool_finished``), and turns a tool that raises into a
failed tool result so the turn goes on and the model can react.

Before any permission is asked, a tool's own check runs: a tool whose ``metadata`` holds a
callable under :data:`CHECK_KEY` (sync or async, given the call's arguments) returns why the
call cannot run (a path outside the session's directories, …) or ``None``. A refused call is
never put to the user.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.errors import GraphBubbleUp

from langacp.bridge.turn import TurnReporter
from langacp.off_loop import run_off_loop
from langacp.running import running_turn
from langacp.tool_names import CHECK_KEY
from langacp.types import PromptCancelled, SessionContext, ToolCallInfo

if TYPE_CHECKING:
    from langchain.agents.middleware import ToolCallRequest
    from langgraph.types import Command

    from langacp.plugins import Plugins

__all__ = [
    "CHECK_KEY",
    "PluginWrappersMiddleware",
    "ToolGuardMiddleware",
    "core_middleware",
    "error_result",
    "permission_refusal",
    "refused_message",
    "run_contained",
]

CHECK_TIMEOUT = 10.0
"""Seconds a tool's check may take (it runs in a worker thread when it is sync)."""


class ToolGuardMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """Permission gate and error containment for tool calls."""

    def __init__(self, plugins: Plugins, session: SessionContext) -> None:
        super().__init__()
        self.plugins = plugins
        self.session = session

    @property
    def name(self) -> str:
        return "langacp_tool_guard"

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        call = ToolCallInfo.from_tool_call(request.tool_call)
        turn = running_turn(self.session)
        runner = turn if isinstance(turn, TurnReporter) else None
        if runner is not None:
            # The turn knows the call's arguments from here on, whether or not the graph's stream
            # has told it yet: a cancel during the checks below still shows them.
            runner.announce(call.tool_call_id, call.name, call.args)
            call = runner.known_call(call)  # the same call, its kind known: the hooks below need not ask again
        refused = await permission_refusal(self.plugins, self.session, call, getattr(request, "tool", None))
        if refused is not None:
            return refused
        if runner is not None:
            runner.tool_started(call.tool_call_id, call.name, call.args)
        await self.plugins.tool_starting(call, self.session)
        tool_cancels = _tool_cancels()
        session_id = self.session.session_id
        result: ToolMessage | Command[Any]
        try:
            if tool_cancels.enabled(session_id):  # a client that may stop this call alone: it runs as a task
                result = await tool_cancels.run(
                    session_id, call.tool_call_id, lambda: run_contained(call, handler, request)
                )
            else:
                result = await run_contained(call, handler, request)
        except tool_cancels.ToolCallCancelled:  # the client stopped this call alone (ACP v2): the turn goes on
            result = ToolMessage(
                content="Cancelled: the user stopped this tool call.",
                tool_call_id=call.tool_call_id,
                name=call.name,
                status="error",
            )
        await self.plugins.tool_finished(call, result, self.session)
        return result


@functools.cache
def _tool_cancels() -> ModuleType:
    """:mod:`langacp.protocol.tool_cancels`, imported on the first tool call (it imports the protocol's models)."""
    from langacp.protocol import tool_cancels

    return tool_cancels


class PluginWrappersMiddleware(ToolGuardMiddleware):
    """The tool guard, which also runs the model-call wrappers of the plugins' middleware in its own hook.

    ``create_agent`` puts a LangSmith span around every middleware hook on every call, tracing
    or not; the plugins' middleware that only wrap model calls run here, chained as
    ``create_agent`` chains middleware (:mod:`langacp.compat.langchain`), under one span.
    """

    def __init__(self, plugins: Plugins, session: SessionContext, wrappers: Sequence[Any]) -> None:
        from langacp.compat.langchain import compose_model_call_wrappers

        super().__init__(plugins, session)
        self.wrappers = list(wrappers)
        self._composed = compose_model_call_wrappers([m.awrap_model_call for m in self.wrappers])

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await self._composed(request, handler)


def core_middleware(plugins: Plugins, session: SessionContext, contributed: Sequence[Any]) -> list[Any]:
    """``setup.middleware``: the tool guard first, then the plugins' middleware (``contributed``).

    The leading run of contributed middleware that only wrap model calls (async, no tools or
    state of their own) runs inside the guard (:class:`PluginWrappersMiddleware`), in order.
    """
    contributed = list(contributed)
    folded = 0
    while folded < len(contributed) and _only_wraps_model_calls(contributed[folded]):
        folded += 1
    if not folded:
        return [ToolGuardMiddleware(plugins, session), *contributed]
    return [PluginWrappersMiddleware(plugins, session, contributed[:folded]), *contributed[folded:]]


def _only_wraps_model_calls(middleware: Any) -> bool:
    import inspect

    from langacp.shared_graphs import middleware_hooks

    cls = type(middleware)
    hooks = [h for h in middleware_hooks() if getattr(cls, h) is not getattr(AgentMiddleware, h)]
    return (
        hooks == ["awrap_model_call"]
        and inspect.iscoroutinefunction(cls.awrap_model_call)
        and not getattr(middleware, "tools", None)
        and getattr(middleware, "state_schema", None) is vars(AgentMiddleware)["state_schema"]
        and not getattr(middleware, "transformers", None)
    )


async def tool_check(call: ToolCallInfo, tool: Any) -> str | None:
    """The tool's own check of ``call`` (:data:`CHECK_KEY`): why it cannot run, or ``None``."""
    import asyncio
    import inspect

    check = (getattr(tool, "metadata", None) or {}).get(CHECK_KEY)
    if not callable(check):
        return None
    try:
        if inspect.iscoroutinefunction(check):
            result = await asyncio.wait_for(check(dict(call.args)), CHECK_TIMEOUT)
        else:
            result = await run_off_loop(check, CHECK_TIMEOUT, dict(call.args))
    except TimeoutError:
        return f"checking its arguments took longer than {CHECK_TIMEOUT:g} s"
    except Exception as exc:  # noqa: BLE001 - a failing check refuses the call, it never lets it through
        return f"its arguments could not be checked ({type(exc).__name__}: {exc})"
    return str(result) if result else None


async def permission_refusal(
    plugins: Plugins, session: SessionContext, call: ToolCallInfo, tool: Any = None
) -> ToolMessage | None:
    """Apply the tool's own check, then the permission policy (asking the user when it says so).

    ``None`` if the call may run; otherwise the error ``ToolMessage`` that tells the model why
    it did not. A call the tool's check refuses is never put to the user.
    """
    problem = await tool_check(call, tool)
    if problem is not None:
        return refused_message(call, problem)
    kind = plugins.tool_kind(call, session)
    verdict = plugins.permission_verdict(call, kind, session)
    default_reason = "the permission policy denied it"
    if verdict.decision == "ask":
        verdict = await plugins.ask_permission_verdict(call, kind, session)
        default_reason = "the user declined it"
    if verdict.decision == "allow":
        return None
    reason = verdict.reason or default_reason
    return refused_message(call, reason)


def refused_message(call: ToolCallInfo, reason: str) -> ToolMessage:
    """The failed result of a tool call that did not run, telling the model ``reason``."""
    return ToolMessage(
        content=f"The call to {call.name} did not run: {reason}. Do not retry it unchanged.",
        tool_call_id=call.tool_call_id,
        name=call.name,
        status="error",
    )


async def run_contained(
    call: ToolCallInfo,
    handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    request: ToolCallRequest,
) -> ToolMessage | Command[Any]:
    """Run the tool; an exception it raises becomes a failed result, so the turn goes on."""
    try:
        return await handler(request)
    except (GraphBubbleUp, PromptCancelled):  # interrupts and cancels end or pause the turn
        raise
    except Exception as exc:  # noqa: BLE001 - a failing tool fails its call, not the turn
        return error_result(call, exc)


def error_result(call: ToolCallInfo, exc: BaseException) -> ToolMessage:
    """The failed result of a tool call that raised ``exc``."""
    return ToolMessage(
        content=f"Error: {type(exc).__name__}: {exc}", tool_call_id=call.tool_call_id, name=call.name, status="error"
    )
