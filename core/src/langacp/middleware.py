"""The tool guard: the core's middleware around every tool call of a factory-built agent.

It enforces the permission policy (``langacp_permission`` / ``langacp_ask_permission``)
before a tool runs, and turns a tool that raises into a failed tool result so the turn goes
on and the model can react.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.errors import GraphBubbleUp

from langacp.types import PromptCancelled, SessionContext, ToolCallInfo

if TYPE_CHECKING:
    from langchain.agents.middleware import ToolCallRequest
    from langgraph.types import Command

    from langacp.plugins import Plugins

__all__ = ["RUNNER_KEY", "ToolGuardMiddleware"]

RUNNER_KEY = "langacp.turn"
"""``SessionContext.state`` key of the running turn's ``TurnRunner`` (set by the agent)."""


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
        kind = self.plugins.tool_kind(call, self.session)
        verdict = self.plugins.permission_verdict(call, kind, self.session)
        default_reason = "the permission policy denied it"
        if verdict.decision == "ask":
            verdict = await self.plugins.ask_permission_verdict(call, kind, self.session)
            default_reason = "the user declined it"
        if verdict.decision != "allow":
            reason = verdict.reason or default_reason
            return ToolMessage(
                content=f"The call to {call.name} did not run: {reason}. Do not retry it unchanged.",
                tool_call_id=call.tool_call_id,
                name=call.name,
                status="error",
            )
        runner = self.session.state.get(RUNNER_KEY)
        if runner is not None:
            runner.tool_started(call.tool_call_id, call.name, call.args)
        try:
            return await handler(request)
        except (GraphBubbleUp, PromptCancelled):  # interrupts and cancels end or pause the turn
            raise
        except Exception as exc:  # noqa: BLE001 - a failing tool fails its call, not the turn
            return ToolMessage(
                content=f"Error: {type(exc).__name__}: {exc}",
                tool_call_id=call.tool_call_id,
                name=call.name,
                status="error",
            )
