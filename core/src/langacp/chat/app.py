"""Run ``langacp chat``: spawn the agent, open a session, read prompts, handle Ctrl-C.

Ctrl-C while a prompt runs sends ``session/cancel`` (and cancels a pending permission
question); a second Ctrl-C, or Ctrl-C / Ctrl-D at the prompt, exits. The agent runs in its own
process group so the terminal's Ctrl-C reaches only us.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langacp.chat.client import AnswerPolicy, ChatHandler, chat_policy
from langacp.chat.commands import completions, help_lines
from langacp.chat.lines import LineReader, choose
from langacp.chat.prompt import TerminalPrompt
from langacp.chat.render import JsonRenderer, Renderer, TerminalRenderer, dump
from langacp.client.connection import AcpConnection, AgentExited
from langacp.pipes import EXIT_STDOUT_CLOSED, stdout_closed

if TYPE_CHECKING:
    from acp.schema import PermissionOption

# ``acp`` (about a second to import) is imported once the agent is spawned, so both start at once.

__all__ = ["EXIT_CODES", "ChatOptions", "run_chat"]


EXIT_CODES = {"end_turn": 0, "refusal": 3, "max_tokens": 4, "max_turn_requests": 5, "cancelled": 130}
"""``--prompt``'s exit code for each stop reason (1: error, 2: usage)."""
STDERR_TAIL = 40


PROTOCOL_ENV = "LANGACP_CHAT_PROTOCOL"


def chat_protocol() -> int:
    """The ACP version the chat asks for: 2 (an agent that answers 1 is spoken to in v1), or 1 when
    ``LANGACP_CHAT_PROTOCOL=1``."""
    return 1 if os.environ.get(PROTOCOL_ENV, "").strip() == "1" else 2


@dataclass
class ChatOptions:
    command: Sequence[str]
    prompt: str | None = None
    json: bool = False
    policy: AnswerPolicy = "ask"
    verbose: bool = False
    cwd: str = field(default_factory=os.getcwd)
    resume: str | None = None
    """A session id to load instead of starting a new session, or ``last``."""
    list_sessions: bool = False
    """Print the agent's sessions of ``cwd`` and exit."""


class NoSession(Exception):
    """``--resume last`` with no session to resume."""


class Chat:
    """One ``langacp chat`` run, on :class:`~langacp.client.AcpConnection`."""

    def __init__(self, options: ChatOptions) -> None:
        self.options = options
        self.renderer: Renderer = JsonRenderer() if options.json else TerminalRenderer()
        console = getattr(self.renderer, "console", None)
        if console is not None:  # rich's own reaction to a closed stdout is SystemExit(1) from inside a task
            console.on_broken_pipe = self._on_console_broken_pipe
        self.interactive = options.prompt is None
        self.lines: LineReader | None = None
        self.prompt: TerminalPrompt | None = None
        """Line editing and history for the prompt at a terminal."""
        self.handler: ChatHandler | None = None
        self.acp: AcpConnection | None = None
        self.session_id = ""
        self.modes: Any = None
        self.turn: asyncio.Task[Any] | None = None
        self.cancel_sent = False
        self.tool_cancel_sent = False
        self._cancelling: asyncio.Future[None] | None = None
        self.question: asyncio.Future[None] | None = None
        self.main: asyncio.Task[Any] | None = None
        self.stdout_gone = False

    # -- agent process -------------------------------------------------------------------------

    async def _spawn(self) -> None:
        handler = self.handler = ChatHandler(self.renderer)
        handler.on_stdout_closed = self._on_stdout_closed
        policy = chat_policy(self.options.policy, handler, self._ask if self._can_ask() else None)
        self.acp = AcpConnection(handler, policy, stderr_lines=STDERR_TAIL, on_stderr=self._agent_line)
        command = list(self.options.command)
        await self.acp.spawn(command[0], command[1:])

    def _agent_line(self, line: str) -> None:
        if self.options.verbose:
            self.renderer.agent_log(line)

    def _report_exit(self, exc: AgentExited) -> None:
        self.renderer.error(f"the agent exited (code {exc.returncode}): {' '.join(self.options.command)}")
        if not self.options.verbose:
            for line in exc.stderr_tail:
                self.renderer.agent_log(line)

    # -- Ctrl-C and permission questions -------------------------------------------------------

    def _on_stdout_closed(self) -> None:
        """Whoever read our output went away: stop quietly (``run_chat`` exits 141)."""
        if not self.stdout_gone:
            self.stdout_gone = True
            stdout_closed()
            if self.main is not None:
                self.main.cancel()

    def _on_console_broken_pipe(self) -> None:
        self.renderer.console.quiet = True  # type: ignore[attr-defined]
        self._on_stdout_closed()

    def _on_sigint(self) -> None:
        tools = self.acp.cancellable_tool_calls(self.session_id) if self.acp is not None else []
        if (
            self.turn is not None
            and not self.turn.done()
            and tools
            and not self.cancel_sent
            and not self.tool_cancel_sent
        ):
            self.tool_cancel_sent = True  # ACP v2: the running tool call alone, the answer goes on
            self.renderer.info("⏹ cancelling the running tool call… (Ctrl-C again cancels the answer)")
            assert self.acp is not None
            self._cancelling = asyncio.ensure_future(self.acp.cancel_tool_call(self.session_id, tools[-1]))
            return
        if self.turn is not None and not self.turn.done() and not self.cancel_sent:
            self.cancel_sent = True
            self.renderer.info("⏹ cancelling… (Ctrl-C again to exit)")
            if self.question is not None and not self.question.done():
                self.question.set_result(None)
            if self.acp is not None:
                self._cancelling = asyncio.ensure_future(self.acp.cancel(self.session_id))
            return
        if self.main is not None:
            self.main.cancel()

    def _can_ask(self) -> bool:
        return self.interactive or sys.stdin.isatty()

    async def _ask(self, options: list[PermissionOption]) -> PermissionOption | None:
        """Ask which offered option to take; ``None`` if the user cancels (Ctrl-C) or input ends."""
        assert self.lines is not None
        question: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.question = question
        self.lines.attach()
        try:
            while True:
                self._show_prompt(f"choose 1-{len(options)}: ")
                line_task = asyncio.ensure_future(self.lines.readline())
                waiting: list[asyncio.Future[Any]] = [line_task, question]
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if question.done():
                    line_task.cancel()
                    return None
                line = line_task.result()
                if line is None:
                    return None
                option = choose(line.strip(), options)
                if option is not None:
                    return option
                self.renderer.info(f"type a number from 1 to {len(options)} (or the option's name)")
        finally:
            self.question = None
            if self.prompt is not None:
                self.lines.detach()  # readline reads the next prompt

    def _show_prompt(self, text: str) -> None:
        if isinstance(self.renderer, TerminalRenderer):
            self.renderer.end_stream()
            self.renderer.console.print(text, end="", style="bold", markup=False, highlight=False)
        elif sys.stdin.isatty():
            sys.stderr.write(text)
            sys.stderr.flush()

    # -- session and turns ---------------------------------------------------------------------

    async def _open(self) -> None:
        assert self.acp is not None
        from acp.schema import Implementation

        from langacp import __version__

        self.acp.client_info = Implementation(name="langacp-chat", title="langacp chat", version=__version__)
        await self.acp.initialize(protocol_version=chat_protocol(), timeout=None)  # may download: Ctrl-C
        self._status()
        cwd = self.options.cwd
        if self.options.resume is not None:
            self.session_id = await self._resume_id(self.options.resume)
            self.renderer.info(f"resuming session {self.session_id}")
            response: Any = await self.acp.load_session(self.session_id, cwd)
        else:
            response = await self.acp.new_session(cwd)
            self.session_id = response.session_id
        self.modes = response.modes
        if self.modes is not None:
            self.renderer.mode_changed(self.modes.current_mode_id)

    def _status(self) -> None:
        """With ``--verbose``: which agent answered, and the ACP version the connection settled on."""
        if self.options.verbose and self.acp is not None and self.acp.init_response is not None:
            info = self.acp.init_response.agent_info
            name = f"{info.name} {info.version}" if info is not None else "the agent"
            self.renderer.info(f"{name} · ACP v{self.acp.protocol_version}")

    async def _sessions(self) -> list[Any]:
        """The agent's sessions of this directory, the most recently updated first."""
        assert self.acp is not None
        sessions: list[Any] = []
        cursor: str | None = None
        while True:
            page = await self.acp.list_sessions(cwd=self.options.cwd, cursor=cursor)
            sessions.extend(page.sessions)
            cursor = page.next_cursor
            if not cursor:
                break
        return sorted(sessions, key=lambda s: s.updated_at or "", reverse=True)

    def _forgets(self) -> str:
        """Why there is no session to list or resume, when the agent keeps none after it exits."""
        init = self.acp.init_response if self.acp is not None else None
        capabilities = getattr(init, "agent_capabilities", None)
        if capabilities is None or getattr(capabilities, "load_session", False):
            return ""
        if getattr(getattr(init, "agent_info", None), "name", None) != "langacp":
            return ": this agent keeps no sessions after it exits (it offers no session/load)"
        from langacp.hints import install_command

        return (
            ": the agent's session store is memory, which forgets every session when the agent exits; "
            f"to keep them install langacp-sqlite ({install_command('langacp-sqlite')}), "
            "or serve with --store sqlite:///path/to/sessions.db"
        )

    async def _resume_id(self, wanted: str) -> str:
        if wanted != "last":
            return wanted
        sessions = await self._sessions()
        if not sessions:
            raise NoSession(f"no session to resume in {self.options.cwd}{self._forgets()}")
        return str(sessions[0].session_id)

    async def _list(self) -> int:
        assert self.acp is not None
        await self.acp.initialize(protocol_version=chat_protocol(), timeout=None)  # may download: Ctrl-C
        sessions = await self._sessions()
        if self.options.json:
            for info in sessions:
                print(json.dumps(dump(info), ensure_ascii=False), flush=True)
            return 0
        if not sessions:
            self.renderer.info(f"no sessions in {self.options.cwd}{self._forgets()}")
        for info in sessions:
            print(f"{info.session_id}  {info.updated_at or '':<32}  {info.title or ''}".rstrip(), flush=True)
        return 0

    async def _turn(self, text: str) -> str:
        """Send one prompt; returns its stop reason, or ``"error"``."""
        assert self.acp is not None
        from acp import RequestError

        self.cancel_sent = self.tool_cancel_sent = False
        self.turn = asyncio.ensure_future(self.acp.prompt(self.session_id, text))
        try:
            response = await self.turn
        except RequestError as exc:
            self.renderer.error(f"error: {_describe(exc)}")
            return "error"
        finally:
            self.turn = None
        stop_reason = str(response.stop_reason)
        self.renderer.turn_end(self.session_id, stop_reason)
        return stop_reason

    @property
    def _agent_commands(self) -> dict[str, str]:
        return self.handler.commands if self.handler is not None else {}

    async def _local_command(self, line: str) -> bool:
        """Handle ``/help``, ``/mode``, ``/exit`` and ``/quit``; ``False`` if ``line`` is for the agent."""
        name, _, argument = line[1:].partition(" ")
        if name in ("exit", "quit"):
            raise EOFError
        if name == "help":
            self._help()
            return "help" not in self._agent_commands  # the agent's own /help follows, when it has one
        if name == "mode" and self.modes is None:
            if "mode" in self._agent_commands:
                return False
            self.renderer.info("this agent has no modes (type /help for what is available)")
            return True
        if name == "mode":
            assert self.acp is not None
            from acp import RequestError

            available = [m.id for m in self.modes.available_modes]
            if not argument:
                self.renderer.info(f"mode: {self.modes.current_mode_id} (available: {', '.join(available)})")
                return True
            try:
                await self.acp.set_mode(self.session_id, argument.strip())
            except RequestError as exc:
                self.renderer.error(f"error: {_describe(exc)}")
                return True
            self.modes.current_mode_id = argument.strip()
            self.renderer.mode_changed(self.modes.current_mode_id)
            return True
        return False

    def _help(self) -> None:
        """What can be typed here: the chat's own commands, the agent's, the keys (with no agent call)."""
        keys = self.prompt is not None and self.prompt.available
        for line in help_lines(self.modes, self._agent_commands, keys=keys):
            self.renderer.info(line)

    def _completions(self, line: str) -> list[str]:
        """What Tab may complete ``line`` (typed so far) with: a command, or a mode id after ``/mode``."""
        return completions(line, self.modes, self._agent_commands)

    async def _read_prompt(self) -> str | None:
        """The next prompt typed (readline at a terminal, else a line of stdin); ``None`` at the end."""
        assert self.lines is not None
        if self.prompt is None or not self.prompt.available or not self.lines.lines.empty():
            self._show_prompt("> ")
            return await self.lines.readline()
        bold = False
        if isinstance(self.renderer, TerminalRenderer):
            self.renderer.end_stream()
            bold = self.renderer.console.color_system is not None
        text = "\001\033[1m\002> \001\033[0m\002" if bold else "> "
        return await self.prompt.read(text)

    async def _interactive(self) -> int:
        assert self.lines is not None
        self.renderer.info(
            "langacp chat · /help · Ctrl-C cancels a running answer · /exit, Ctrl-D or Ctrl-C at the prompt exits"
        )
        while True:
            line = await self._read_prompt()
            if line is None:
                return 0
            if not sys.stdin.isatty():  # a terminal echoes what is typed; piped input is shown here
                self.renderer.info(line)
            line = line.strip()
            if not line:
                continue
            try:
                if line.startswith("/") and await self._local_command(line):
                    continue
            except EOFError:
                return 0
            await self._turn(line)

    async def run(self) -> int:
        self.main = asyncio.current_task()
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, self._on_sigint)
        try:
            try:
                await self._spawn()
            except OSError as exc:
                self.renderer.error(f"cannot start the agent {' '.join(self.options.command)}: {exc}")
                return 1
            if self._can_ask():
                if self.interactive and sys.stdin.isatty():
                    self.prompt = TerminalPrompt(self._completions)
                self.lines = LineReader(attached=self.prompt is None or not self.prompt.available)
            from acp import RequestError

            try:
                if self.options.list_sessions:
                    return await self._list()
                await self._open()
                if self.options.prompt is not None:
                    stop_reason = await self._turn(self.options.prompt)
                    return EXIT_CODES.get(stop_reason, 1)
                return await self._interactive()
            except AgentExited as exc:
                self._report_exit(exc)
                return 1
            except NoSession as exc:
                self.renderer.error(str(exc))
                return 1
            except RequestError as exc:
                self.renderer.error(f"error: {_describe(exc)}")
                if not self.options.verbose:
                    self.renderer.info("(run with --verbose to see the agent's log)")
                return 1
        except asyncio.CancelledError:  # Ctrl-C with no turn to cancel
            return 0 if self.interactive else 130
        finally:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signal.SIGINT)
            if self.lines is not None:
                self.lines.close()
            if self.prompt is not None:
                self.prompt.close()
            if self.acp is not None:
                await self.acp.close()


def _describe(exc: Any) -> str:
    """A JSON-RPC error (``acp.RequestError``) as one line, with its details."""
    data = exc.data
    details = data.get("details") if isinstance(data, dict) else data
    return f"{exc} ({details})" if details else str(exc)


def run_chat(options: ChatOptions) -> int:
    """Run the chat until the user exits (or, with ``--prompt``, one turn); returns the exit code."""
    if options.json:
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    chat = Chat(options)
    try:
        code = asyncio.run(chat.run())
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        chat.stdout_gone = True
    if chat.stdout_gone:
        stdout_closed()
        return EXIT_STDOUT_CLOSED
    return code
