"""The LangChain tools of one session: ``read_file``, ``write_file``, ``edit_file``, ``run_command``.

All four are async, so cancelling a turn stops them at once (a sync tool would keep running
in its thread). Failures the model can act on come back as failed tool results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool

from langacp.api import SessionContext, SessionPaths, session_tool
from langacp_client_tools.access import ClientAccess, client_access, path_check
from langacp_client_tools.commands import CommandRunner
from langacp_client_tools.files import Artifact, FileOps
from langacp_client_tools.settings import Settings

if TYPE_CHECKING:
    from langacp_client_tools.preview import Seen

__all__ = ["TOOL_NAMES", "ClientTools", "make_client_tools"]

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
        self.made: dict[str, BaseTool] = {}
        """The tools handed to the session's agent, by name."""

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

    def tools(self) -> list[BaseTool]:
        """The four tools (a failure becomes a failed tool result the model reads)."""
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


def make_client_tools(session: SessionContext, settings: Settings | None = None) -> list[BaseTool]:
    """``read_file``, ``write_file``, ``edit_file`` and ``run_command`` for ``session``.

    They use the editor's ``fs`` and ``terminal`` methods when the client declared them, and
    local implementations otherwise; either way confined to the session's directories.
    """
    return ClientTools(session, settings).tools()
