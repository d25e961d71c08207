"""The built-in ``update_plan`` tool, and the middleware that hides it when the agent has ``write_todos``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import BaseTool, StructuredTool, tool
from langchain_core.utils.function_calling import convert_to_openai_function
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse

__all__ = ["HideWhenTodos", "PlanArguments", "PlanItem", "update_plan"]


class PlanItem(BaseModel):
    """One step of the plan."""

    content: str = Field(description="What this step does, in a short sentence.")
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


class PlanArguments(BaseModel):
    """``update_plan``'s arguments: what the model sends is validated against this."""

    entries: list[PlanItem]
    plan_id: str | None = None


@tool("update_plan")
def _described(entries: list[PlanItem], plan_id: str | None = None) -> str:
    """Show the user your plan for a task with several steps, and keep it current.

    Send the complete list every time (it replaces the previous one): mark a step
    ``in_progress`` when you start it and ``completed`` as soon as it is done. Skip this tool
    for simple one-step requests.

    Only when you keep several plans (one per sub-task, say): give each a short ``plan_id``, and
    send a plan with empty ``entries`` to remove it. Leave ``plan_id`` out for your main plan.
    """
    raise NotImplementedError  # only described: update_plan (below) runs


def _update_plan(**arguments: Any) -> str:
    plan = PlanArguments.model_validate(arguments)  # a ValidationError fails the call
    checked = plan.entries
    name = f" {plan.plan_id!r}" if plan.plan_id else ""
    if not checked and plan.plan_id:
        return f"Plan{name} removed."
    done = sum(1 for entry in checked if entry.status == "completed")
    return f"Plan{name} updated: {done} of {len(checked)} steps completed."


_FUNCTION = convert_to_openai_function(_described)

update_plan: BaseTool = StructuredTool.from_function(
    _update_plan,
    name=_FUNCTION["name"],
    description=_FUNCTION["description"],
    args_schema=_FUNCTION["parameters"],
)
"""The ``update_plan`` tool. Its argument schema is the JSON schema LangChain makes of
:class:`PlanArguments` for a model, made once: a model's ``bind_tools`` converts every tool on
every model call, and converting the pydantic schema (``PlanItem`` nested under ``$defs``,
dereferenced and copied each time) cost ~4x a flat tool's. The arguments are validated against
:class:`PlanArguments` when it runs, so an invalid plan fails the call with the same
``ValidationError`` the pydantic schema gave (``ToolNode`` turns it into the same message)."""


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
