"""Default tool-call mapping: kind ``other``, the tool's name as title, its result as text."""

from __future__ import annotations

from typing import Any

from langacp.hookspecs import hookimpl
from langacp.types import SessionContext, ToolCallInfo


@hookimpl(trylast=True)
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str:
    return "other"


@hookimpl(trylast=True)
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str:
    return call.name


@hookimpl(trylast=True)
def langacp_tool_locations(call: ToolCallInfo, session: SessionContext) -> list[Any]:
    return []


@hookimpl(trylast=True)
def langacp_tool_start_content(call: ToolCallInfo, session: SessionContext) -> list[Any]:
    return []


@hookimpl(trylast=True)
def langacp_tool_result_content(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any]:
    from langacp.text_models import tool_text_content

    text = result_text(result)
    return [tool_text_content(text)] if text else []


def result_text(result: Any) -> str:
    """The text of a tool result (a ``ToolMessage``, a string, or anything printable)."""
    text = getattr(result, "text", None)
    if isinstance(text, str):
        return text
    if callable(text):  # older langchain-core: ``text()`` was a method
        return str(text())
    content = getattr(result, "content", result)
    return content if isinstance(content, str) else str(content)
