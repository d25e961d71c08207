"""The built-in ``update_plan`` tool, and the middleware that hides it when the agent has ``write_todos``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import BaseTool, tool
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse

__all__ = ["HideWhenTodos", "PlanItem", "update_plan"]


class PlanItem(BaseModel):
    """One step of the plan."""

    content: str = Field(description="What this step does, in a short sentence.")
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


@tool("update_plan")
def update_plan(entries: list[PlanItem]) -> str:
    """Show the user your plan for a task with several steps, and keep it current.

    Send the complete list every time (it replaces the previous one): mark a step
    ``in_progress`` when you start it and ``completed`` as soon as it is done. Skip this tool
    for simple one-step requests.
    """
    done = sum(1 for entry in entries if entry.status == "completed")
    return f"Plan updated: {done} of {len(entries)} steps completed."


def _name(tool_: Any) -> str | None:
    if isinstance(tool_, BaseTool):
        return tool_.name
    if isinstance(tool_, dict):
        name = tool_.get("name") or (tool_.get("function") or {}).get("name")
        return name if isinstance(name, str) else None
    return getattr(tool_, "__name__", None)


class HideWhenTodos(AgentMiddleware):  # type: ignore[type-arg]
    """Removes ``update_plan`` from what the model sees when the agent has ``write_todos``."""

    @property
    def name(self) -> str:
        return "langacp_plans"

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        names = {_name(t) for t in request.tools}
        if "write_todos" in names and "update_plan" in names:
            request = request.override(tools=[t for t in request.tools if _name(t) != "update_plan"])
        return await handler(request)
