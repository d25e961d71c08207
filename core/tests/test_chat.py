"""``langacp chat``: scripted (--prompt, --json, --yes/--no) and interactive.

End to end (``langacp chat`` and its agent as processes, a pseudo-terminal for the interactive
ones): the JSON output of the default agent, Ctrl-C's exit code, a permission question answered
in a terminal, Ctrl-C at a terminal. What the chat does with what the agent sends (rendering,
``--yes``/``--no``, permission questions, ``/mode``, a Ctrl-C during a question) runs the chat
in this process, its agent spawned as a real process that relays its stdio to a real agent
served in this process (:func:`agent_in_process`): no Python start-up per test. Command-line
checks run ``langacp.cli.main`` in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pexpect
import pytest
from core_support import SCRIPTED, agent_env, agent_in_process

from langacp import cli
from langacp.chat.app import PROTOCOL_ENV, Chat, ChatOptions
from langacp.default_agent import DEFAULT_TARGET
from langacp.default_agent.demo_model import LABEL
from langacp.testing.polling import eventually

CHAT = [sys.executable, "-m", "langacp.cli", "chat"]
SCRIPTED_AGENT = ["--", sys.executable, "-m", "langacp.cli", "serve", f"{SCRIPTED}:agent"]
TEST_AGENT = [*SCRIPTED_AGENT, "-p", "testplug"]
"""With the fixture plugin: its environment must put it on the path (``agent_env(testplug=[...])``)."""


@pytest.fixture(params=[1, 2], ids=["v1", "v2"])
def protocol(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """The chat asks for this ACP version (the wire differs: v2 upserts, acknowledged prompts, patches)."""
    monkeypatch.setenv(PROTOCOL_ENV, str(request.param))
    return int(request.param)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Hello project\n\nIt does things.\n")
    (root / "app.py").write_text("x = 1  # TODO\n")
    return root


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CHAT, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def _demo_env() -> dict[str, str]:
    return agent_env(extra={"LANGACP_DEMO_DELAY": "0"})


@contextlib.contextmanager
def _environ(env: dict[str, str]) -> Iterator[None]:
    """``os.environ`` is ``env`` (what a ``langacp chat`` process would get), restored after."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


# -- the chat in this process, its agent a relay process to an agent served in this process ----------


@contextlib.contextmanager
def _stdin(monkeypatch: pytest.MonkeyPatch, lines: Sequence[str] | None, *, end: bool = True) -> Iterator[None]:
    """The chat's stdin: ``lines`` through a pipe, then its end (or, with ``end=False``, only once the
    chat is over); ``None``: ``/dev/null``."""
    if lines is None:
        with open(os.devnull) as devnull:
            monkeypatch.setattr(sys, "stdin", devnull)
            yield
        return
    read_fd, write_fd = os.pipe()
    os.write(write_fd, "".join(f"{line}\n" for line in lines).encode())
    if end:
        os.close(write_fd)
    try:
        with os.fdopen(read_fd) as reader:
            monkeypatch.setattr(sys, "stdin", reader)
            yield
    finally:
        if not end:
            os.close(write_fd)


async def chat_in_process(
    monkeypatch: pytest.MonkeyPatch,
    project: Path,
    args: Sequence[str] = (),
    *,
    lines: Sequence[str] | None = None,
    end: bool = True,
    target: str = f"{SCRIPTED}:agent",
    testplug: Sequence[str] = (),
    env: dict[str, str] | None = None,
    during: Callable[[], Awaitable[None]] | None = None,
    prelude: str = "",
) -> int:
    """``langacp chat ARGS -- AGENT`` in this process, with ``lines`` as what the user types; its exit code.

    The command line goes through ``langacp.cli.main`` up to the options it hands to ``run_chat``;
    the chat then runs in this event loop (``run_chat`` would start its own). ``during()``, if
    given, runs beside the chat (e.g. to press Ctrl-C at the right moment).
    """
    from langacp.chat import app

    async with agent_in_process(target, testplug=testplug, env=env, prelude=prelude) as command:
        given: list[ChatOptions] = []
        with monkeypatch.context() as patch:
            patch.setattr(app, "run_chat", lambda options: given.append(options) or 0)
            assert cli.main(["chat", "--cwd", str(project), *args, "--", *command]) == 0
        with _stdin(monkeypatch, lines, end=end):
            chat = Chat(given[0])
            if during is None:
                code = await chat.run()
            else:
                run, helper = asyncio.ensure_future(chat.run()), asyncio.ensure_future(during())
                await asyncio.wait([run, helper], return_when=asyncio.FIRST_COMPLETED)
                if helper.done() and helper.exception() is not None:
                    run.cancel()  # the test failed: stop the chat
                    await asyncio.gather(run, return_exceptions=True)
                    helper.result()
                helper.cancel()
                await asyncio.gather(helper, return_exceptions=True)
                code = await run
        if chat.acp is not None and chat.acp.init_response is not None:  # the version the test runs in
            assert chat.acp.protocol_version == (1 if os.environ.get(PROTOCOL_ENV) == "1" else 2)
        return code


async def ctrl_c() -> None:
    """Ctrl-C, as the terminal sends it: SIGINT to this process (the chat's handler must be in place)."""
    assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler, "the chat does not handle SIGINT"
    signal.raise_signal(signal.SIGINT)
    await asyncio.sleep(0)


class Screen:
    """What the in-process chat printed so far (stdout, stderr), read from ``capsys`` as it comes."""

    def __init__(self, capsys: Any) -> None:
        self.capsys = capsys
        self.out = ""
        self.err = ""

    def read(self) -> tuple[str, str]:
        out, err = self.capsys.readouterr()
        self.out += out
        self.err += err
        return self.out, self.err

    async def shows(self, text: str, after: int = 0) -> int:
        """Wait until stdout shows ``text`` past position ``after``; the position just past it."""
        await eventually(lambda: self.read()[0].find(text, after) >= 0, timeout=30)
        return self.out.find(text, after) + len(text)


def _in_order(shown: str, expected: Sequence[str]) -> None:
    position = 0
    for piece in expected:
        found = shown.find(piece, position)
        assert found >= 0, f"{piece!r} missing after position {position} in:\n{shown}"
        position = found + len(piece)


def test_prompt_json_end_to_end(project: Path, protocol: int) -> None:
    result = _run(["--prompt", "list files", "--json"], project, {**_demo_env(), PROTOCOL_ENV: str(protocol)})
    assert result.returncode == 0, result.stderr
    lines = _lines(result.stdout)
    updates = [line["update"] for line in lines if "update" in line]
    kinds = [u["sessionUpdate"] for u in updates]
    assert "agent_thought_chunk" in kinds
    assert "user_message_chunk" not in kinds  # v2's echo of the prompt: the user typed it
    text = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    assert text.startswith(LABEL)
    assert "`README.md`" in text and "`app.py`" in text
    start = next(u for u in updates if u["sessionUpdate"] == "tool_call")
    assert start["title"] == "list_files" and start["toolCallId"]
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"]
    assert "README.md" in done[0]["content"][0]["content"]["text"]
    assert lines[-1] == {"sessionId": lines[0]["sessionId"], "stopReason": "end_turn"}


async def test_prompt_plain_text(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, protocol: int) -> None:
    demo = {"LANGACP_DEMO_DELAY": "0"}
    code = await chat_in_process(monkeypatch, project, ["--prompt", "read README.md"], target=DEFAULT_TARGET, env=demo)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert LABEL in out
    assert "● read_file (other) pending" in out
    assert "✓ read_file completed" in out
    assert "│ # Hello project" in out  # a markdown quote, not the prompt marker "> "


@pytest.mark.parametrize(
    ("flag", "answer", "text"),
    [
        ("--yes", "allow_once", "done: 3"),
        ("--no", "reject_once", "did not run: the user declined it"),
        (None, "reject_once", ""),
    ],
)
async def test_prompt_answers_permissions(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, flag: str | None, answer: str, text: str, protocol: int
) -> None:
    args = ["--prompt", 'tool add {"a": 1, "b": 2}', "--json", *([flag] if flag else [])]
    code = await chat_in_process(monkeypatch, project, args, testplug=["ask"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = _lines(out)
    request = next(line["requestPermission"] for line in lines if "requestPermission" in line)
    assert [o["kind"] for o in request["options"]] == ["allow_once", "reject_once"]
    assert request["toolCall"]["title"] == "add"
    outcome = next(line["permissionOutcome"] for line in lines if "permissionOutcome" in line)
    assert outcome["optionId"] == answer
    messages = "".join(
        line["update"]["content"]["text"]
        for line in lines
        if "update" in line and line["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert text in messages
    if flag is None:
        assert "no terminal to ask: pass --yes or --no" in err


def test_prompt_ctrl_c_cancels_with_exit_code(project: Path, protocol: int) -> None:
    process = subprocess.Popen(
        [*CHAT, "--prompt", "slow 30", "--json", *SCRIPTED_AGENT],
        cwd=project,
        env=agent_env(extra={PROTOCOL_ENV: str(protocol)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    started = time.monotonic()
    for line in process.stdout:  # wait for the slow tool to start
        if '"tool_call"' in line:
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert time.monotonic() - started < 25  # the 30 s tool did not run to the end
    assert _lines(out)[-1]["stopReason"] == "cancelled"


def test_agent_stderr_is_drained_and_shown_with_verbose(project: Path, capsys: Any) -> None:
    """The chat in this process (``langacp.cli.main``), the agent a ``langacp serve`` process logging at debug."""
    args = ["chat", "--cwd", str(project), "--prompt", "echo hi", "--verbose", "--", sys.executable, "-m"]
    args += ["langacp.cli", "serve", f"{SCRIPTED}:agent", "--log-level", "debug"]
    with _environ(agent_env()):
        assert cli.main(args) == 0
    out, err = capsys.readouterr()
    assert "hi" in out
    assert "agent: " in err and "DEBUG" in err


async def test_agent_stderr_is_not_shown_without_verbose(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, protocol: int
) -> None:
    chatty = "import sys\nprint('the agent writes to stderr', file=sys.stderr, flush=True)"
    args = ["--prompt", "echo hi"]
    assert await chat_in_process(monkeypatch, project, args, prelude=chatty) == 0
    out, err = capsys.readouterr()
    assert "hi" in out
    assert "the agent writes to stderr" not in err and "agent: " not in err
    assert await chat_in_process(monkeypatch, project, [*args, "--verbose"], prelude=chatty) == 0
    assert "agent: the agent writes to stderr" in capsys.readouterr().err  # what the first run left out


def test_a_model_that_cannot_work_is_refused_before_the_agent_starts(project: Path, capsys: Any) -> None:
    with _environ(_demo_env()):
        assert cli.main(["chat", "--cwd", str(project), "--prompt", "hi", "--model", "groq:llama-3.3-70b"]) == 2
    assert "pip install langchain-groq" in capsys.readouterr().err


def test_agent_that_cannot_start_is_reported(project: Path, capsys: Any) -> None:
    """The chat in this process (``langacp.cli.main``); the agent a ``langacp serve`` process that cannot start."""
    command = ["--", sys.executable, "-m", "langacp.cli", "serve", str(project / "missing.py") + ":agent"]
    with _environ(_demo_env()):
        assert cli.main(["chat", "--cwd", str(project), "--prompt", "hi", *command]) == 1
    err = capsys.readouterr().err
    assert "the agent exited (code 2)" in err
    assert "no such file" in err


async def _shown_in_each_version(monkeypatch: pytest.MonkeyPatch, capsys: Any, **chat: Any) -> dict[int, str]:
    """What the same chat shows (stdout and stderr) when it asks for ACP v1 and for v2."""
    shown = {}
    for version in (1, 2):
        monkeypatch.setenv(PROTOCOL_ENV, str(version))
        assert await chat_in_process(monkeypatch, **chat) == 0
        out, err = capsys.readouterr()
        shown[version] = out + err
    return shown


async def test_the_demo_shows_the_same_in_both_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """The README demo's prompts (and a read and a plan), with the default agent: over v2 (its
    acknowledged prompt echoed back as a user message, upserts, ``state_update``) exactly as over v1."""
    project = tmp_path / "my-project"
    (project / "src").mkdir(parents=True)
    (project / "README.md").write_text("# my-project\n\nA small example.\n")
    (project / "src" / "app.py").write_text("def main():\n    pass  # TODO: greet the user\n")
    lines = ["list files", "search for TODO", "read README.md", "make a plan for a release"]
    demo = {"LANGACP_DEMO_DELAY": "0"}
    shown = await _shown_in_each_version(
        monkeypatch, capsys, project=project, lines=lines, target=DEFAULT_TARGET, env=demo
    )
    assert shown[2] == shown[1]
    _in_order(shown[1], ["> list files", "README.md", "> search for TODO", "TODO: greet the user", "Plan:"])
    assert shown[1].count("list files") == 1, shown[1]  # what the user typed is not shown again


async def test_a_large_file_s_diff_shows_the_same_in_both_versions(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """A tool's diff of a 200-line file, two changes far apart: over v2 it travels as a git patch of
    the changes with 3 lines around each, and the chat shows the same hunks, line numbers and paths."""
    args = ["--prompt", 'tool add {"a": 1, "b": 2}', "--yes"]
    shown = await _shown_in_each_version(monkeypatch, capsys, project=project, args=args, testplug=["diff"])
    assert shown[2] == shown[1]
    path = project / "big.txt"
    _in_order(
        shown[1], [f"diff {path}", f"--- a{path}", f"+++ b{path}", "@@ -17,7 +17,7 @@", "-line 20", "+line twenty"]
    )
    _in_order(shown[1], ["@@ -147,7 +147,6 @@", "-line 150", "✓ add completed"])
    assert shown[1].count("-line 20\n") == 1 and "line 100" not in shown[1], shown[1]


# -- interactive, through a pseudo-terminal ---------------------------------------------------------


def _spawn(args: list[str], cwd: Path, env: dict[str, str]) -> pexpect.spawn:
    # plain text to match (styles would split it); the prompt history in the test's directory, not the user's
    env = {"XDG_DATA_HOME": str(cwd.parent / "data"), **env, "TERM": "dumb"}
    child = pexpect.spawn(
        CHAT[0], [*CHAT[1:], *args], cwd=str(cwd), env=env, encoding="utf-8", timeout=30, dimensions=(50, 200)
    )
    child.expect_exact("> ")
    return child


def _finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus or 0)


async def test_interactive_default_agent(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, protocol: int
) -> None:
    lines = ["read README.md", "make a plan for a release"]  # then the end of input (Ctrl-D)
    demo = {"LANGACP_DEMO_DELAY": "0"}
    assert await chat_in_process(monkeypatch, project, lines=lines, target=DEFAULT_TARGET, env=demo) == 0
    out = capsys.readouterr().out
    # a quoted line starts with "│ ", not "> ": that is the prompt's own marker
    shown = ["> ", LABEL, "● read_file", "│ # Hello project", "> ", "write_todos", "The plan has 3 steps", "> "]
    _in_order(out, shown)


def test_interactive_permission_request_is_answered_by_choice(project: Path) -> None:
    child = _spawn(TEST_AGENT, project, agent_env(testplug=["ask"]))
    child.sendline('tool add {"a": 1, "b": 2}')
    child.expect_exact("Allow add")
    child.expect_exact("1) Allow once   2) Reject")
    child.expect_exact("choose 1-2: ")
    child.sendline("7")  # not an option: asked again
    child.expect_exact("type a number from 1 to 2")
    child.expect_exact("choose 1-2: ")
    child.sendline("1")
    child.expect_exact("done: 3")
    child.expect_exact("> ")
    child.sendline('tool add {"a": 5, "b": 5}')
    child.expect_exact("choose 1-2: ")
    child.sendline("reject")
    child.expect_exact("→ Reject")
    child.expect_exact("did not run: the user declined it")
    child.expect_exact("> ")
    child.sendline("/quit")
    assert _finish(child) == 0


def test_interactive_ctrl_c_cancels_then_exits(project: Path) -> None:
    child = _spawn(SCRIPTED_AGENT, project, agent_env())
    child.sendline("slow 30")
    child.expect_exact("slow_async")
    child.sendintr()
    child.expect_exact("cancelling")
    child.expect_exact("stop: cancelled")
    child.expect_exact("> ")
    child.sendline("echo still serving")  # the session goes on after a cancel
    child.expect_exact("still serving")
    child.expect_exact("> ")
    child.sendline("slow 30")
    child.expect_exact("slow_async")
    child.sendintr()
    child.expect_exact("cancelling")
    child.sendintr()  # a second Ctrl-C exits
    assert _finish(child) == 0


async def test_interactive_ctrl_c_cancels_a_permission_question(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, protocol: int
) -> None:
    screen = Screen(capsys)

    async def user() -> None:
        asked = await screen.shows("choose 1-2: ")
        await ctrl_c()
        await screen.shows("> ", await screen.shows("stop: cancelled", await screen.shows("→ cancelled", asked)))
        await ctrl_c()  # at the prompt: exit

    lines = ['tool add {"a": 1, "b": 2}']  # and the input stays open: only Ctrl-C ends the question
    code = await chat_in_process(monkeypatch, project, lines=lines, end=False, testplug=["ask"], during=user)
    assert code == 0
    assert "done: 3" not in screen.read()[0]


# -- what the terminal shows for each kind of update ----------------------------------------------


def test_terminal_renderer_shows_every_kind_of_update() -> None:
    import io

    from acp.helpers import (
        plan_entry,
        start_tool_call,
        tool_diff_content,
        update_agent_message_text,
        update_agent_thought_text,
        update_current_mode,
        update_plan,
        update_tool_call,
    )
    from acp.schema import ToolCallLocation, UsageUpdate
    from rich.console import Console

    from langacp.chat.render import TerminalRenderer

    out = io.StringIO()
    renderer = TerminalRenderer(Console(file=out, width=200, highlight=False, soft_wrap=True))
    sid = "s1"
    renderer.update(sid, update_agent_thought_text("Thinking."))
    renderer.update(sid, update_agent_message_text("I will "))
    renderer.update(sid, update_agent_message_text("edit it."))
    diff = tool_diff_content("/p/a.py", "x = 2\n", "x = 1\n")
    location = ToolCallLocation(path="/p/a.py", line=3)
    renderer.update(sid, start_tool_call("c1", "Edit a.py", kind="edit", status="pending", locations=[location]))
    renderer.update(sid, update_tool_call("c1", status="in_progress"))
    renderer.update(sid, update_tool_call("c1", status="completed", content=[diff]))
    entries = [plan_entry("Look", status="completed"), plan_entry("Fix", status="in_progress"), plan_entry("Test")]
    renderer.update(sid, update_plan(entries))
    renderer.update(sid, update_current_mode("code"))
    renderer.update(sid, UsageUpdate(session_update="usage_update", used=1200, size=200000))
    renderer.turn_end(sid, "end_turn")
    shown = out.getvalue()
    expected = [
        "Thinking.\n",
        "I will edit it.\n",
        "● Edit a.py (edit) pending",
        "at /p/a.py:3",
        "-x = 1",
        "+x = 2",
        "✓ Edit a.py completed",
        "Plan:",
        "[x] Look",
        "[~] Fix",
        "[ ] Test",
        "mode → code",
        "context 1200/200000 tokens",
    ]
    position = 0
    for piece in expected:  # in this order
        found = shown.find(piece, position)
        assert found >= 0, f"{piece!r} missing after position {position} in:\n{shown}"
        position = found + len(piece)


def test_agent_command_that_does_not_exist(project: Path, capsys: Any) -> None:
    assert cli.main(["chat", "--cwd", str(project), "--prompt", "hi", "--", str(project / "no-such-agent")]) == 1
    assert "cannot start the agent" in capsys.readouterr().err


async def test_interactive_modes(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, protocol: int) -> None:
    lines = ["/mode", "/mode code", "/mode nope"]
    assert await chat_in_process(monkeypatch, project, lines=lines, testplug=["modes"]) == 0
    out, err = capsys.readouterr()
    _in_order(out, ["> ", "mode: ask (available: ask, code)", "> ", "mode → code", "> ", "> "])
    assert "unknown mode 'nope'" in err
    assert out.count("mode → code") == 1  # the rejected mode changed nothing


async def test_demo_answers_read_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, protocol: int
) -> None:
    """Plurals as English has them, quotes that do not look like the prompt, the todo list as a list."""
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "NOTES.md").write_text("> a quote in the file, TODO\n")
    lines = ["list files", "read NOTES.md", "search for TODO", "make a plan for a release"]
    demo = {"LANGACP_DEMO_DELAY": "0"}
    assert await chat_in_process(monkeypatch, project, lines=lines, target=DEFAULT_TARGET, env=demo) == 0
    out = capsys.readouterr().out
    assert "(1 directory, 1 file)" in out, out
    assert "(1 line read.)" in out, out
    assert "│ > a quote in the file" in out, out
    assert "1 match for 'TODO' in 1 file:" in out and "Found 1 match for `TODO` in 1 file." in out, out
    prompts = [line for line in out.splitlines() if line.startswith(">")]
    assert prompts == [f"> {line}" for line in lines] + ["> "], out  # only the prompt starts with ">"
    _in_order(out, ["> make a plan", "Plan:", "[ ] ", "[ ] ", "The plan has 3 steps"])
    assert "{'content'" not in out, out


async def test_help_and_mode_answer_here_without_the_commands_plugin(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """With the core alone the agent has no /help and no modes: the chat says so, the model is not asked."""
    lines = ["/help", "/mode", "/mode code"]
    assert await chat_in_process(monkeypatch, project, lines=lines) == 0
    out = capsys.readouterr().out
    _in_order(out, ["> /help", "chat commands:", "/help", "/mode", "(this agent has no modes)", "/exit"])
    _in_order(out, ["> /mode", "this agent has no modes", "> /mode code", "this agent has no modes", "> "])
    assert "the agent has no slash commands of its own" in out
    assert "You said" not in out  # nothing reached the model


async def test_help_lists_the_agent_s_commands_and_passes_help_on(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, protocol: int
) -> None:
    lines = ["/help"]
    assert await chat_in_process(monkeypatch, project, lines=lines, testplug=["modes"]) == 0
    out = capsys.readouterr().out
    _in_order(out, ["> /help", "chat commands:", "/mode", "show the session's mode"])
    assert "(this agent has no modes)" not in out


# -- the prompt at a terminal: readline ------------------------------------------------------------


def _terminal_chat(project: Path, data: Path) -> pexpect.spawn:
    env = agent_env(extra={"XDG_DATA_HOME": str(data), "TERM": "xterm", "NO_COLOR": "1"})
    child = pexpect.spawn(
        CHAT[0],
        [*CHAT[1:], *SCRIPTED_AGENT],
        cwd=str(project),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
    )
    child.expect_exact("> ")
    return child


def test_prompt_line_editing_history_completion_and_clear(project: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    child = _terminal_chat(project, data)
    child.send("echo helo")
    child.send("\x1b[D")  # ← : the cursor goes back one character
    child.send("l\r")
    child.expect_exact("\r\nhello\r\n")  # the agent got "echo hello", not "echo helo^[[Dl"
    child.expect_exact("> ")
    child.send("\x1b[A\r")  # ↑ recalls the last prompt
    child.expect_exact("\r\nhello\r\n")
    child.expect_exact("> ")
    child.send("/he\t\r")  # Tab completes the command
    child.expect_exact("chat commands:")
    child.expect_exact("> ")
    child.send("\x0c")  # Ctrl-L clears the screen, here; the agent never sees it
    child.expect_exact("\x1b[H\x1b[2J")
    child.send("/quit\r")
    assert _finish(child) == 0
    assert "\x1b[D" not in (child.before or "")
    history = (data / "langacp" / "chat_history").read_text()
    assert "echo hello" in history and "/quit" in history
    again = _terminal_chat(project, data)  # a new chat remembers the last one's prompts
    again.send("\x1b[A\x1b[A\r")  # ↑↑: past /quit, the /help of the last chat
    again.expect_exact("chat commands:")
    again.expect_exact("> ")
    again.sendcontrol("d")
    assert _finish(again) == 0
