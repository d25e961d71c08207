"""Tool-call titles that show the arguments: ``add(a=2, b=3)`` instead of ``add``."""

from __future__ import annotations

from langacp.api import SessionContext, ToolCallInfo, hookimpl

MAX_VALUE = 40


@hookimpl
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str | None:
    if not call.args:
        return None  # arguments not known yet: let the default answer
    shown = ", ".join(f"{key}={_short(value)}" for key, value in call.args.items())
    return f"{call.name}({shown})"


def _short(value: object) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"
