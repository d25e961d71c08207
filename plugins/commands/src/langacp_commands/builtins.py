"""The built-in commands: /help, /mode, /model, /tools, /clear.

They use only the core's hooks (modes, config options, tool kinds), so they work with any
plugin that offers modes or a model option, not only langacp-modes.
"""

from __future__ import annotations

from typing import Any

from langacp.api import SessionContext, ToolCallInfo

__all__ = ["BUILTINS", "builtin_commands", "graph_tools", "run_builtin", "unknown"]

_ASK: Any = object()
"""``builtin_commands``' default: ask the plugins for the session's modes."""

BUILTINS: dict[str, tuple[str, str | None]] = {
    "help": ("List the slash commands", None),
    "mode": ("Show the modes, or switch to one", "mode id"),
    "model": ("Show the models, or switch to one for the next turn", "model id"),
    "tools": ("List the tools the agent can call", None),
    "clear": ("Start a fresh conversation in this session (the model forgets the earlier messages)", None),
}


def builtin_commands(session: SessionContext, modes: Any = _ASK, config_options: list[Any] | None = None) -> list[Any]:
    """The built-ins this session can use: /mode only with modes, /model only with a model option.

    ``modes`` and ``config_options`` are the session's (``langacp_available_commands`` gets them
    from the core); asked of the plugins when not given.
    """
    from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

    plugins = session.plugins
    if modes is _ASK:
        modes = plugins.session_modes(session) if plugins is not None else None
    if config_options is None:
        config_options = plugins.config_options(session) if plugins is not None else []
    commands = []
    for name, (description, hint) in BUILTINS.items():
        if name == "mode" and modes is None:
            continue
        if name == "model" and _option_in(config_options, "model") is None:
            continue
        if name == "clear" and session.new_thread is None:
            continue
        command = _MADE.get(name)
        if command is None:  # the same for every session: built once (a pydantic model each, per session, otherwise)
            entry = AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None
            command = _MADE[name] = AvailableCommand(name=name, description=description, input=entry)
        commands.append(command)
    return commands


_MADE: dict[str, Any] = {}


async def run_builtin(session: SessionContext, name: str, argument: str) -> str | None:
    """Run a built-in; ``None`` if ``name`` is not one this session offers."""
    if name not in {c.name for c in builtin_commands(session)}:
        return None
    if name == "help":
        return help_text(session)
    if name == "mode":
        return await _mode(session, argument)
    if name == "model":
        return await _model(session, argument)
    if name == "tools":
        return _tools(session)
    return await _clear(session)


def help_text(session: SessionContext) -> str:
    commands = session.plugins.available_commands(session) if session.plugins is not None else []
    lines = ["Commands:"]
    for command in commands:
        hint = getattr(getattr(command.input, "root", None), "hint", None)
        usage = f"/{command.name}" + (f" [{hint}]" if hint else "")
        lines.append(f"- `{usage}`: {command.description}")
    return "\n".join(lines)


def unknown(session: SessionContext, name: str) -> str:
    """The answer to ``/name`` when no plugin runs it."""
    commands = session.plugins.available_commands(session) if session.plugins is not None else []
    names = ", ".join(f"/{c.name}" for c in commands)
    return f"Unknown command /{name}. Commands: {names}. Type /help for details."


async def _mode(session: SessionContext, argument: str) -> str:
    from acp.helpers import update_current_mode

    assert session.plugins is not None
    modes = session.plugins.session_modes(session)
    assert modes is not None
    if not argument:
        lines = [f"Mode: {_mode_name(modes, modes.current_mode_id)}. Modes:"]
        for mode in modes.available_modes:
            mark = " (current)" if mode.id == modes.current_mode_id else ""
            lines.append(f"- `{mode.id}`: {mode.name}{mark}" + (f": {mode.description}" if mode.description else ""))
        lines.append("Switch with /mode ID.")
        return "\n".join(lines)
    ok = await session.plugins.set_mode(session, argument)
    if not ok:
        return f"Unknown mode {argument!r}. Modes: {', '.join(m.id for m in modes.available_modes)}."
    if session.send_update is not None:
        await session.send_update(update_current_mode(argument))
    return f"Switched to {_mode_name(modes, argument)} mode."


def _mode_name(modes: Any, mode_id: str) -> str:
    return next((m.name for m in modes.available_modes if m.id == mode_id), mode_id)


def _option(session: SessionContext, category: str) -> Any:
    return _option_in(session.plugins.config_options(session) if session.plugins is not None else [], category)


def _option_in(options: list[Any], category: str) -> Any:
    return next((o for o in options if getattr(o, "category", None) == category and hasattr(o, "options")), None)


def _choices(option: Any) -> list[Any]:
    """The flat list of a select option's choices (groups flattened)."""
    flat: list[Any] = []
    for entry in option.options:
        flat.extend(getattr(entry, "options", None) or [entry])
    return flat


async def _model(session: SessionContext, argument: str) -> str:
    from acp.schema import ConfigOptionUpdate

    assert session.plugins is not None
    option = _option(session, "model")
    choices = _choices(option)
    if not argument:
        lines = ["Models:"]
        for choice in choices:
            mark = " (current)" if choice.value == option.current_value else ""
            lines.append(f"- `{choice.value}`: {choice.name}{mark}")
        lines.append("Switch with /model ID.")
        return "\n".join(lines)
    if argument not in {c.value for c in choices}:
        return f"Unknown model {argument!r}. Models: {', '.join(c.value for c in choices)}."
    ok = await session.plugins.set_config_option(session, option.id, argument)
    if not ok:
        return f"Could not switch to model {argument!r} (see the agent's log)."
    if session.send_update is not None:
        update = ConfigOptionUpdate(
            session_update="config_option_update", config_options=session.plugins.config_options(session)
        )
        await session.send_update(update)
    name = next((c.name for c in choices if c.value == argument), argument)
    return f"Switched to model {name} from the next turn on."


def graph_tools(graph: Any) -> list[Any]:
    """The tools of a compiled agent graph (its ``ToolNode``s), in order; ``[]`` if it has none."""
    from langgraph.prebuilt import ToolNode

    found: list[Any] = []
    for node in getattr(graph, "nodes", {}).values():
        bound = getattr(node, "bound", None)
        if isinstance(bound, ToolNode):
            found.extend(bound.tools_by_name.values())
    return found


def _tools(session: SessionContext) -> str:
    tools = graph_tools(session.graph)
    if not tools:
        return "This agent has no tools."
    lines = [f"Tools ({len(tools)}):"]
    for tool in tools:
        kind = session.plugins.tool_kind(ToolCallInfo("", tool.name, {}), session) if session.plugins else "other"
        description = (tool.description or "").strip().splitlines()
        lines.append(f"- `{tool.name}` ({kind})" + (f": {description[0]}" if description else ""))
    return "\n".join(lines)


async def _clear(session: SessionContext) -> str:
    assert session.new_thread is not None
    await session.new_thread()
    return "Started a fresh conversation: the agent no longer sees the earlier messages."
