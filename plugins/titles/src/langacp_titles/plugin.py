"""The titles plugin's hooks.

* the first prompt of an untitled session names it (a short clean title, not the prompt);
* the agent can rename it with the ``set_session_title`` tool, the user with ``/title NEW``;
* each title is stored with the session (``session/list``) and sent as ``session_info_update``,
  and sent again on ``session/load`` / resume.

Configuration (``[titles]`` in ``.langacp.toml`` or ``~/.config/langacp/config.toml``):
``agent_tool = false`` keeps the ``set_session_title`` tool away from the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langacp.api import SessionContext, ToolCallInfo, current_session, hookimpl, layers_for, left_out
from langacp_titles.text import clean_title, title_from_prompt
from langacp_titles.titles import set_title

TOOL_NAME = "set_session_title"


@hookimpl
async def langacp_prompt_started(session: SessionContext, prompt: Any) -> None:
    if session.title is not None:
        return  # titled already (by a prompt, the agent, the user or another plugin)
    title = title_from_prompt(prompt)
    if title is not None:
        await set_title(session, title, "prompt")


@hookimpl
async def langacp_session_loaded(session: SessionContext) -> None:
    title = session.title
    if title is not None and session.send_update is not None:
        from acp.schema import SessionInfoUpdate

        await session.send_update(SessionInfoUpdate(session_update="session_info_update", title=title))


IF_INVALID = "the agent's set_session_title tool is offered"


@hookimpl
def langacp_config_tables() -> list[Any]:
    from langacp.api import ConfigTable
    from langacp_titles.table import TitlesTable

    return [ConfigTable("titles", TitlesTable, IF_INVALID)]


def _agent_tool(session: SessionContext) -> bool:
    from langacp.api import ConfigError, read_table
    from langacp_titles.table import TitlesTable

    layers = layers_for(session)
    try:
        return read_table(TitlesTable, "titles", layers).agent_tool
    except ConfigError as exc:
        layers.report(str(exc), IF_INVALID)
        return True


@hookimpl
def langacp_session_tools(session: SessionContext) -> list[Any]:
    if not _agent_tool(session):
        return []
    global _TOOL
    if _TOOL is None:  # one for every session: each call acts for the session whose turn makes it
        from langchain_core.tools import StructuredTool

        _TOOL = StructuredTool.from_function(coroutine=set_session_title, name=TOOL_NAME)
    session.scratch(_Offered).tool = _TOOL
    return [_TOOL]


@dataclass(slots=True)
class _Offered:
    """Our ``set_session_title`` as given to a session (``session.scratch(_Offered)``)."""

    tool: Any = None


_TOOL: Any = None


async def set_session_title(title: str) -> str:
    """Name this conversation: a short title (at most 60 characters) saying what it is about.

    The editor shows it in its list of sessions. Use it once the topic is clear, or when
    the topic changes.
    """
    from langchain_core.tools import ToolException

    session = current_session()
    tool = session.scratch(_Offered).tool if session is not None else None
    if session is None or tool is None or left_out(session, tool):  # fails closed: no turn, or not given it
        raise ToolException(f"{TOOL_NAME} runs only in a turn of a session it was given to; nothing was done")
    clean = clean_title(title)
    if clean is None:
        raise ValueError("the title is empty")
    await set_title(session, clean, "agent")
    return f"The session is now titled {clean!r}."


@hookimpl
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str | None:
    if call.name != TOOL_NAME:
        return None
    title = call.args.get("title")
    return f"Set session title: {title}" if isinstance(title, str) and title.strip() else "Set session title"


@hookimpl
def langacp_available_commands(session: SessionContext) -> list[Any]:
    global _COMMAND
    if _COMMAND is None:  # the same for every session: built once, so the core builds the update once too
        from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

        _COMMAND = AvailableCommand(
            name="title",
            description="Rename this session",
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint="new title")),
        )
    return [_COMMAND]


_COMMAND: Any = None


@hookimpl
def langacp_run_command(session: SessionContext, name: str, argument: str) -> Any:
    if name != "title":
        return None

    async def run() -> str:
        title = clean_title(argument)
        if title is None:
            current = session.title
            return f"This session is titled {current!r}." if current else "This session has no title yet."
        await set_title(session, title, "user")
        return f"Renamed the session to {title!r}."

    return run()
