"""``update_plan`` carries its argument schema as the JSON a model is sent (converted once), and still
validates what the model sends: the same schema and the same errors as the pydantic schema it replaces."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langacp.testing.model import Reply, ScriptedChatModel, ScriptedToolCall
from langacp_plans.tool import PlanArguments, update_plan


def _reference() -> BaseTool:
    """``update_plan`` as it was: a pydantic argument schema, validated by LangChain before it runs."""

    def plan(entries: list[Any], plan_id: str | None = None) -> str:
        done = sum(1 for entry in entries if entry.status == "completed")
        return f"Plan updated: {done} of {len(entries)} steps completed."

    return StructuredTool.from_function(
        plan, name="update_plan", description=update_plan.description, args_schema=PlanArguments
    )


def _result(tool: BaseTool, args: dict[str, Any]) -> ToolMessage:
    model = ScriptedChatModel(replies=[Reply(tool_calls=[ScriptedToolCall("update_plan", args, "call_1")]), "ok"])
    out = asyncio.run(create_agent(model, tools=[tool]).ainvoke({"messages": [("user", "plan")]}))
    message = out["messages"][2]
    assert isinstance(message, ToolMessage)
    return message


def test_the_model_is_sent_the_schema_pydantic_gave() -> None:
    assert convert_to_openai_tool(update_plan) == convert_to_openai_tool(_reference())
    assert isinstance(update_plan.args_schema, dict)  # converted once, not on every model call


@pytest.mark.parametrize(
    "args",
    [
        {"entries": [{"content": "Ship it", "status": "completed"}, {"content": "Tell people", "priority": "low"}]},
        {"entries": [{"content": "x", "status": "someday"}, {"status": "pending"}, "not a step"]},
        {"entries": "not a list"},
        {},
        {"entries": [], "extra": 1},
    ],
)
def test_arguments_are_validated_as_before(args: dict[str, Any]) -> None:
    ours, before = _result(update_plan, args), _result(_reference(), args)
    assert (ours.content, ours.status) == (before.content, before.status)
