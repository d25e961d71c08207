"""The ``switch_mode`` tool: the agent asks the user to change mode (for example to leave planning).

Every call asks the user through a permission request ("Switch to … mode" / "Stay in … mode"),
whatever the mode; the mode changes only if the user allows it. Then the client is told with
``current_mode_update`` and ``config_option_update``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langacp.api import SessionContext, ToolCallInfo, current_session
from langacp_modes.session import current_mode, state_of, switch_mode

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

    from langacp_modes.config import ModeConfig

__all__ = [
    "SWITCH_TOOL",
    "SwitchTool",
    "ask_to_switch",
    "make_switch_tool",
    "notify_mode_changed",
    "offered",
    "refusal",
]

SWITCH_TOOL = "switch_mode"


def make_switch_tool(session: SessionContext) -> BaseTool:
    """The ``switch_mode`` tool for ``session``: one per set of modes, made once and offered to every
    session with those modes; each call acts for the session whose turn makes it (:func:`_switch`)."""
    from langchain_core.tools import StructuredTool  # not at import: plugins load before initialize

    description = _description(state_of(session).config)
    tool = _TOOLS.get(description)
    if tool is None:
        tool = _TOOLS[description] = StructuredTool.from_function(
            coroutine=_switch, name=SWITCH_TOOL, description=description
        )
        if len(_TOOLS) > 16:  # one per set of modes (the configuration files): a few at most
            _TOOLS.pop(next(iter(_TOOLS)))  # a session that has it keeps it
    return tool


async def _switch(mode_id: str, reason: str = "") -> str:
    from langchain_core.tools import ToolException

    session = current_session()
    if session is None or not offered(session):  # fails closed: no turn, or a session never given the tool
        raise ToolException(f"{SWITCH_TOOL} runs only in a turn of a session it was given to; nothing was done")
    if current_mode(session).id == mode_id:
        return f"Already in {current_mode(session).name} mode."
    if not switch_mode(session, mode_id):  # the permission check refuses unknown ids first
        return refusal(session, mode_id) or f"unknown mode {mode_id!r}"
    await notify_mode_changed(session)
    return f"The user switched the session to {current_mode(session).name} mode."


def _description(config: ModeConfig) -> str:
    """The tool's description for a configuration's modes (built once per configuration)."""
    description = config.views.get("switch_description")
    if description is None:
        modes = ", ".join(f"{m.id} ({m.description or m.name})" for m in config.modes.values())
        description = config.views["switch_description"] = (
            "Ask the user to switch the session to another mode; it changes only if the user agrees. "
            f"Modes: {modes}. Give the reason (for example the plan to carry out)."
        )
    return str(description)


_TOOLS: dict[str, BaseTool] = {}
"""The tool made for each set of modes (its description lists them)."""


@dataclass(slots=True)
class SwitchTool:
    """The ``switch_mode`` tool offered to a session (``session.scratch(SwitchTool)``), once made."""

    tool: Any = None


def offered(session: SessionContext) -> bool:
    """Whether ``session`` was given our ``switch_mode`` and its agent has it (not the app's own)."""
    from langacp.api import left_out

    tool = session.scratch(SwitchTool).tool
    return tool is not None and not left_out(session, tool)


def refusal(session: SessionContext, mode_id: Any) -> str | None:
    """Why a switch to ``mode_id`` cannot even be asked for (``None``: it can)."""
    modes = state_of(session).config.modes
    if isinstance(mode_id, str) and mode_id in modes:
        return None
    return f"there is no mode {mode_id!r}; the modes are {', '.join(modes)}"


async def notify_mode_changed(session: SessionContext) -> None:
    """Send ``current_mode_update`` and ``config_option_update`` after the agent switched mode."""
    from acp.helpers import update_current_mode
    from acp.schema import ConfigOptionUpdate

    from langacp_modes.options import config_options

    if session.send_update is None:
        return
    await session.send_update(update_current_mode(current_mode(session).id))
    await session.send_update(
        ConfigOptionUpdate(session_update="config_option_update", config_options=config_options(session))
    )


async def ask_to_switch(call: ToolCallInfo, session: SessionContext) -> str:
    """Ask the user about a ``switch_mode`` call: ``"allow"`` or ``"deny"``."""
    from acp.schema import PermissionOption, ToolCallUpdate

    if session.client is None:
        return "deny"
    target = state_of(session).config.modes[str(call.args.get("mode_id"))]
    here = current_mode(session)
    reason = str(call.args.get("reason") or "")
    options = [
        PermissionOption(option_id="switch", name=f"Switch to {target.name} mode", kind="allow_once"),
        PermissionOption(option_id="stay", name=f"Stay in {here.name} mode", kind="reject_once"),
    ]
    content: list[Any] | None = None
    if reason:
        from acp.helpers import text_block, tool_content

        content = [tool_content(text_block(reason))]
    tool_call = ToolCallUpdate(
        tool_call_id=call.tool_call_id,
        title=f"Switch to {target.name} mode",
        kind="switch_mode",
        raw_input=call.args,
        content=content,
    )
    return "allow" if await session.request_permission(tool_call, options) == "switch" else "deny"
