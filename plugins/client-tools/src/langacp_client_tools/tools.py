"""The LangChain tools of one session: ``read_file``, ``write_file``, ``edit_file``, ``run_command``.

All four are async, so cancelling a turn stops them at once (a sync tool would keep running
in its thread). Failures the model can act on come back as failed tool results.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool, ToolException

from langacp.api import SessionContext, SessionPaths, current_session, session_tool
from langacp_client_tools.access import ClientAccess, client_access, path_check
from langacp_client_tools.commands import CommandRunner
from langacp_client_tools.files import Artifact, FileOps
from langacp_client_tools.settings import Settings

if TYPE_CHECKING:
    from langacp_client_tools.preview import Seen

__all__ = ["TOOL_NAMES", "ClientTools", "make_client_tools", "running_tools"]

CHECK_KEY = "langacp_check"
"""Tool metadata the core's tool guard runs before the permission policy (``langacp.middleware.CHECK_KEY``)."""

TOOL_NAMES = ("read_file", "write_file", "edit_file", "run_command")

READ = (
    "Read a text file of the user's project (path relative to the project root). Returns `limit` lines "
    "(default 2000) starting at line `line` (1-based, default 1); a final line says when more follow. "
    "Open files are read as the editor has them, unsaved changes included."
)
WRITE = (
    "Write a whole text file of the user's project (path relative to the project root), creating it and its "
    "directories if needed. Replaces the file's content: to change part of a file, use edit_file."
)
EDIT = (
    "Edit a text file of the user's project: replace the exact text `old_string` with `new_string`. "
    "`old_string` must match the file exactly (indentation and line breaks included) and occur exactly once; "
    "include enough surrounding lines to make it unique, or set `replace_all` to change every occurrence. "
    "Read the file first."
)
RUN = (
    "Run a shell command in the user's project and return its output (stdout and stderr, the last part when "
    "long) and exit code. `cwd` is a directory relative to the project root (default: the root); `timeout` is "
    "in seconds (default {timeout:g}, at most {max_timeout:g}); the command is stopped when it runs longer. "
    "Do not start commands that wait for input or never end (servers, watchers)."
)


class ClientTools:
    """The file operations and the command runner behind one session's tools."""

    def __init__(
        self, session: SessionContext, settings: Settings | None = None, paths: SessionPaths | None = None
    ) -> None:
        """``paths``: the session's directories, resolved (made here when not given: it touches the file system)."""
        self.session = session
        self.settings = settings or Settings()
        self.access: ClientAccess = client_access(session)
        self.files = FileOps(session, self.access, self.settings, paths)
        self.commands = CommandRunner(session, self.access, self.settings, self.files.paths)
        self.seen: dict[str, Seen] = {}
        """Buffers read for the diffs the model's writes and edits propose, by tool call id."""
        self.made: Mapping[str, BaseTool] = {}
        """The tools handed to the session's agent, by name (the plugin's: one mapping for every session)."""

    def runs(self, name: str) -> bool:
        """Whether the agent's tool called ``name`` is ours (the app's own tool of that name wins a clash)."""
        from langacp.api import left_out

        tool = self.made.get(name)
        return tool is not None and not left_out(self.session, tool)

    def middleware(self) -> list[Any]:
        """The buffer preview, when the editor reads files for us (see :mod:`langacp_client_tools.preview`)."""
        if not self.access.read:
            return []
        from langacp_client_tools.preview import BufferPreview

        return [BufferPreview(self.files, self.seen, self.runs)]

    async def read_file(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        return await self.files.read(path, line, limit)

    async def write_file(self, path: str, content: str) -> tuple[str, Artifact]:
        return await self.files.write(path, content)

    async def edit_file(
        self, path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> tuple[str, Artifact]:
        return await self.files.edit(path, old_string, new_string, replace_all)

    async def run_command(
        self,
        command: str,
        tool_call_id: Annotated[str, InjectedToolCallId],
        cwd: str | None = None,
        timeout: float | None = None,
    ) -> tuple[str, dict[str, str] | None]:
        return await self.commands.run(command, cwd, timeout, tool_call_id)

    def shared_tools(self) -> list[BaseTool]:
        """The four tools as the plugin offers them: made once per process and given to every session,
        each call acting for the session whose turn makes it (:func:`running_tools`), never another."""
        run = RUN.format(timeout=self.settings.timeout, max_timeout=self.settings.max_timeout)
        made, self.made = _shared(run)
        return list(made)

    def tools(self) -> list[BaseTool]:
        """The four tools of this session alone, each bound to it (a failure becomes a failed tool
        result the model reads): for an agent that builds them itself (:func:`make_client_tools`)."""
        run = RUN.format(timeout=self.settings.timeout, max_timeout=self.settings.max_timeout)
        paths = self.files.paths
        # Checked before the permission request: the user is never asked about a call that would be refused.
        checks = {
            "read_file": path_check(paths, "path", "read"),
            "write_file": path_check(paths, "path", "written"),
            "edit_file": path_check(paths, "path", "edited"),
            "run_command": path_check(paths, "cwd", "used as a working directory", files=False),
        }
        made: list[BaseTool] = [
            _tool(self.read_file, "read_file", READ, checks),
            _tool(self.write_file, "write_file", WRITE, checks, response_format="content_and_artifact"),
            _tool(self.edit_file, "edit_file", EDIT, checks, response_format="content_and_artifact"),
            _tool(self.run_command, "run_command", run, checks, response_format="content_and_artifact"),
        ]
        self.made = {tool.name: tool for tool in made}
        return made


_TEMPLATES: dict[tuple[str, str, tuple[tuple[str, Any], ...]], StructuredTool] = {}
"""Each tool as first made, holding no session's function or check: every session gets a copy with
its own (``session_tool``). ``from_function`` derives the argument schema from the method's
signature (a pydantic model, milliseconds) and inspects it again each time."""


def _tool(coroutine: Any, name: str, description: str, checks: dict[str, Any], **kwargs: Any) -> StructuredTool:
    key = (name, description, tuple(sorted(kwargs.items())))
    template = _TEMPLATES.get(key)
    if template is None:
        made = StructuredTool.from_function(
            coroutine=coroutine, name=name, description=description, handle_tool_error=True, **kwargs
        )
        template = _TEMPLATES[key] = made.model_copy(update={"coroutine": None})
        if len(_TEMPLATES) > 32:  # descriptions follow the settings (timeouts): a few variants at most
            _TEMPLATES.pop(next(iter(_TEMPLATES)))
    metadata = {**(template.metadata or {}), CHECK_KEY: checks[name]}
    tool: StructuredTool = session_tool(template, coroutine=coroutine, metadata=metadata)
    return tool


# -- the plugin's tools: one of each per process, acting for the running session --------------------


def running_tools(name: str) -> ClientTools:
    """The tools of the session whose turn calls our tool ``name``, if that session was offered it.

    Fails closed: outside a turn (no running session), or for a session this plugin gave no tool
    of that name (or whose agent left it out for the app's own), it raises :class:`ToolException`
    (a failed tool result) and nothing is read, written or run.
    """
    from langacp_client_tools.plugin import held_tools

    session = current_session()
    tools = held_tools(session) if session is not None else None
    if tools is None or not tools.runs(name):
        raise ToolException(f"{name} runs only in a turn of a session it was given to; nothing was done")
    return tools


async def _read_file(path: str, line: int | None = None, limit: int | None = None) -> str:
    return await running_tools("read_file").read_file(path, line, limit)


async def _write_file(path: str, content: str) -> tuple[str, Artifact]:
    return await running_tools("write_file").write_file(path, content)


async def _edit_file(path: str, old_string: str, new_string: str, replace_all: bool = False) -> tuple[str, Artifact]:
    return await running_tools("edit_file").edit_file(path, old_string, new_string, replace_all)


async def _run_command(
    command: str,
    tool_call_id: Annotated[str, InjectedToolCallId],
    cwd: str | None = None,
    timeout: float | None = None,
) -> tuple[str, dict[str, str] | None]:
    return await running_tools("run_command").run_command(command, tool_call_id, cwd, timeout)


class _RunningCheck:
    """A shared tool's ``langacp_check``: the running session's path check (refused without one)."""

    __slots__ = ("action", "files", "key", "name")

    def __init__(self, name: str, key: str, action: str, *, files: bool = True) -> None:
        self.name, self.key, self.action, self.files = name, key, action, files

    def __call__(self, args: dict[str, Any]) -> str | None:
        try:
            tools = running_tools(self.name)
        except ToolException as exc:
            return str(exc)
        check = path_check(tools.files.paths, self.key, self.action, files=self.files)
        result: str | None = check(args)
        return result


_SHARED: dict[str, tuple[list[BaseTool], Mapping[str, BaseTool]]] = {}
"""The plugin's four tools per ``run_command`` description (it names the timeouts), made once."""


def _shared(run: str) -> tuple[list[BaseTool], Mapping[str, BaseTool]]:
    found = _SHARED.get(run)
    if found is None:
        made: list[BaseTool] = [
            StructuredTool.from_function(
                coroutine=function,
                name=name,
                description=description,
                handle_tool_error=True,
                metadata={CHECK_KEY: _RunningCheck(name, key, action, files=files)},
                response_format="content_and_artifact" if artifact else "content",
            )
            for function, name, description, key, action, files, artifact in (
                (_read_file, "read_file", READ, "path", "read", True, False),
                (_write_file, "write_file", WRITE, "path", "written", True, True),
                (_edit_file, "edit_file", EDIT, "path", "edited", True, True),
                (_run_command, "run_command", run, "cwd", "used as a working directory", False, True),
            )
        ]
        found = _SHARED[run] = (made, MappingProxyType({tool.name: tool for tool in made}))
        if len(_SHARED) > 8:  # descriptions follow the settings (timeouts): a few variants at most
            _SHARED.pop(next(iter(_SHARED)))  # a session that has them keeps them
    return found


def make_client_tools(session: SessionContext, settings: Settings | None = None) -> list[BaseTool]:
    """``read_file``, ``write_file``, ``edit_file`` and ``run_command`` for ``session``.

    They use the editor's ``fs`` and ``terminal`` methods when the client declared them, and
    local implementations otherwise; either way confined to the session's directories.
    """
    return ClientTools(session, settings).tools()
