"""``langacp chat``: scripted (--prompt, --json, --yes/--no) and interactive through a pseudo-terminal."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest
from core_support import SCRIPTED, agent_env

from langacp.default_agent.demo_model import LABEL

CHAT = [sys.executable, "-m", "langacp.cli", "chat"]
TEST_AGENT = ["--", sys.executable, "-m", "langacp.cli", "serve", f"{SCRIPTED}:agent", "-p", "testplug"]


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


def test_prompt_json_end_to_end(project: Path) -> None:
    result = _run(["--prompt", "list files", "--json"], project, _demo_env())
    assert result.returncode == 0, result.stderr
    lines = _lines(result.stdout)
    updates = [line["update"] for line in lines if "update" in line]
    kinds = [u["sessionUpdate"] for u in updates]
    assert "agent_thought_chunk" in kinds
    text = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    assert text.startswith(LABEL)
    assert "`README.md`" in text and "`app.py`" in text
    start = next(u for u in updates if u["sessionUpdate"] == "tool_call")
    assert start["title"] == "list_files" and start["toolCallId"]
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"]
    assert "README.md" in done[0]["content"][0]["content"]["text"]
    assert lines[-1] == {"sessionId": lines[0]["sessionId"], "stopReason": "end_turn"}


def test_prompt_plain_text(project: Path) -> None:
    result = _run(["--prompt", "read README.md"], project, _demo_env())
    assert result.returncode == 0, result.stderr
    assert LABEL in result.stdout
    assert "● read_file (other) pending" in result.stdout
    assert "✓ read_file completed" in result.stdout
    assert "> # Hello project" in result.stdout


@pytest.mark.parametrize(
    ("flag", "answer", "text"),
    [
        ("--yes", "allow_once", "done: 3"),
        ("--no", "reject_once", "did not run: the user declined it"),
        (None, "reject_once", ""),
    ],
)
def test_prompt_answers_permissions(project: Path, flag: str | None, answer: str, text: str) -> None:
    env = agent_env(testplug=["ask"])
    args = ["--prompt", 'tool add {"a": 1, "b": 2}', "--json", *([flag] if flag else []), *TEST_AGENT]
    result = _run(args, project, env)
    assert result.returncode == 0, result.stderr
    lines = _lines(result.stdout)
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
        assert "no terminal to ask: pass --yes or --no" in result.stderr


def test_prompt_ctrl_c_cancels_with_exit_code(project: Path) -> None:
    process = subprocess.Popen(
        [*CHAT, "--prompt", "slow 30", "--json", *TEST_AGENT],
        cwd=project,
        env=agent_env(),
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


def test_agent_stderr_is_drained_and_shown_with_verbose(project: Path) -> None:
    args = ["--prompt", "echo hi", "--verbose", "--", sys.executable, "-m", "langacp.cli", "serve"]
    args += [f"{SCRIPTED}:agent", "--log-level", "debug"]
    result = _run(args, project, agent_env())
    assert result.returncode == 0
    assert "hi" in result.stdout
    assert "agent: " in result.stderr and "DEBUG" in result.stderr
    quiet = _run(args[:3] + args[4:], project, agent_env())
    assert "agent: " not in quiet.stderr


def test_a_model_that_cannot_work_is_refused_before_the_agent_starts(project: Path) -> None:
    result = _run(["--prompt", "hi", "--model", "groq:llama-3.3-70b"], project, _demo_env())
    assert result.returncode == 2
    assert "pip install langchain-groq" in result.stderr


def test_agent_that_cannot_start_is_reported(project: Path) -> None:
    command = ["--", sys.executable, "-m", "langacp.cli", "serve", str(project / "missing.py") + ":agent"]
    result = _run(["--prompt", "hi", *command], project, _demo_env())
    assert result.returncode == 1
    assert "the agent exited (code 2)" in result.stderr
    assert "no such file" in result.stderr


# -- interactive, through a pseudo-terminal ---------------------------------------------------------


def _spawn(args: list[str], cwd: Path, env: dict[str, str]) -> pexpect.spawn:
    env = {**env, "TERM": "dumb"}  # plain text to match: styles would split it
    child = pexpect.spawn(
        CHAT[0], [*CHAT[1:], *args], cwd=str(cwd), env=env, encoding="utf-8", timeout=30, dimensions=(50, 200)
    )
    child.expect_exact("> ")
    return child


def _finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus or 0)


def test_interactive_default_agent(project: Path) -> None:
    child = _spawn([], project, _demo_env())
    child.sendline("read README.md")
    child.expect_exact(LABEL)
    child.expect_exact("● read_file")
    child.expect_exact("> # Hello project")
    child.expect_exact("> ")
    child.sendline("make a plan for a release")
    child.expect_exact("write_todos")
    child.expect_exact("The plan has 3 steps")
    child.expect_exact("> ")
    child.sendeof()
    assert _finish(child) == 0


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
    child = _spawn(TEST_AGENT, project, agent_env())
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


def test_interactive_ctrl_c_cancels_a_permission_question(project: Path) -> None:
    child = _spawn(TEST_AGENT, project, agent_env(testplug=["ask"]))
    child.sendline('tool add {"a": 1, "b": 2}')
    child.expect_exact("choose 1-2: ")
    child.sendintr()
    child.expect_exact("→ cancelled")
    child.expect_exact("stop: cancelled")
    child.expect_exact("> ")
    child.sendintr()  # at the prompt: exit
    assert _finish(child) == 0


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


def test_agent_command_that_does_not_exist(project: Path) -> None:
    result = _run(["--prompt", "hi", "--", str(project / "no-such-agent")], project, agent_env())
    assert result.returncode == 1
    assert "cannot start the agent" in result.stderr


def test_interactive_modes(project: Path) -> None:
    child = _spawn(TEST_AGENT, project, agent_env(testplug=["modes"]))
    child.sendline("/mode")
    child.expect_exact("mode: ask (available: ask, code)")
    child.sendline("/mode code")
    child.expect_exact("mode → code")
    child.expect_exact("> ")
    child.sendline("/mode nope")
    child.expect_exact("unknown mode 'nope'")
    child.expect_exact("> ")
    child.sendeof()
    assert _finish(child) == 0
