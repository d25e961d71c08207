"""Fail fast: a setup that cannot serve is one line on stderr and exit 2, before anything is answered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from robustness_support import agent_env, raw_agent, serve_args

LANGACP = [sys.executable, "-m", "langacp.cli"]


def run(
    args: list[str], tmp: Path, *, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, input=stdin.decode(), capture_output=True, text=True, env=agent_env(tmp, env), cwd=str(tmp), timeout=120
    )


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}) + "\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["missing.py:agent"], "no such file"),
        (["no_such_module_xyz:agent"], "no module named 'no_such_module_xyz'"),
        (["langacp.testing.agent:agent", "--store", "nosuch:///x.db"], "pip install langacp-nosuch"),
        (["langacp.testing.agent:agent", "--store", "sqlite://host/x.db"], "sqlite:///absolute/path.db"),
        (["langacp.testing.agent:agent", "--recursion-limit", "0"], "--recursion-limit must be at least 1"),
        (["--model", "nosuchprovider:some-model"], "unknown provider 'nosuchprovider'"),
    ],
)
def test_a_setup_that_cannot_serve_is_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    result = run([*LANGACP, "serve", *args], tmp_path, stdin=INITIALIZE.encode())
    assert result.returncode == 2, result
    assert result.stdout == ""  # initialize was never answered
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("langacp: ") and said in line and "fix:" in line


def test_a_target_that_fails_to_import_ends_serve_with_exit_2(tmp_path: Path) -> None:
    """Found but broken (its own import fails): seen while loading, the process ends with one line."""
    (tmp_path / "broken_target.py").write_text("import no_such_dependency_xyz\nagent = None\n")
    process = subprocess.Popen(
        serve_args(str(tmp_path / "broken_target.py") + ":agent"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=agent_env(tmp_path),
        cwd=str(tmp_path),
    )
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(INITIALIZE.encode())
    process.stdin.flush()  # and kept open, as an editor does
    assert process.wait(120) == 2
    last = process.stderr.read().decode().strip().splitlines()[-1]
    assert last.startswith("langacp: cannot serve") and "no_such_dependency_xyz" in last
    process.stdin.close()


def test_chat_refuses_a_bad_model_at_once(tmp_path: Path) -> None:
    result = run([*LANGACP, "chat", "--prompt", "hi", "--model", "nosuchprovider:x"], tmp_path)
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("langacp chat: ") and "unknown provider" in line


def test_check_passes_on_a_good_setup(tmp_path: Path) -> None:
    result = run([*LANGACP, "check", "langacp.testing.agent:agent", "--store", f"sqlite:///{tmp_path}/s.db"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert all(line.startswith("ok ") for line in lines[:-1]), lines
    assert any(line.startswith("ok       Python 3.") for line in lines)
    assert any("a per-session factory" in line for line in lines)
    assert any("reachable" in line for line in lines)


def test_check_reports_each_problem_with_its_fix(tmp_path: Path) -> None:
    config = tmp_path / "config" / "langacp" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[mcp.servers.notes]\ncommand = "no-such-mcp-server-xyz"\n')
    (tmp_path / ".langacp.toml").write_bytes(b'[tools]\nname = "caf\xe9"\n')  # Latin-1, not UTF-8
    (tmp_path / "broken_target.py").write_text("import no_such_dependency_xyz\n")
    result = run(
        [
            *LANGACP,
            "check",
            str(tmp_path / "broken_target.py") + ":agent",
            "--store",
            "nosuch:",
            "--recursion-limit",
            "-1",
        ],
        tmp_path,
    )
    assert result.returncode == 1
    problems = [line for line in result.stdout.splitlines() if line.startswith("PROBLEM")]
    assert len(problems) == 5, result.stdout
    assert all("fix:" in line for line in problems)
    text = "\n".join(problems)
    assert "no_such_dependency_xyz" in text and "pip install langacp-nosuch" in text
    assert "--recursion-limit must be at least 1" in text and "'no-such-mcp-server-xyz' not found" in text
    assert f"{tmp_path / '.langacp.toml'}:2:12: not UTF-8" in text


async def test_a_non_utf8_user_config_is_a_warning_naming_it_not_a_failed_session(tmp_path: Path) -> None:
    config = tmp_path / "config" / "langacp" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes(b'[permissions]\nmode = "\xff"\n')
    async with raw_agent(tmp_path, plugins=["permissions", "tools"]) as agent:
        sid = await agent.start(str(tmp_path))
        reply = await agent.prompt(sid, "echo fine")
        assert reply["result"]["stopReason"] == "end_turn"
        assert f"{config}:2:9: not UTF-8" in agent.stderr()


def test_chat_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    """``langacp chat --prompt … | head -1``: no traceback, the exit status a shell expects (141)."""
    for json_flag in ([], ["--json"]):
        chat = subprocess.Popen(
            [*LANGACP, "chat", "--prompt", "long 20000", *json_flag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=agent_env(tmp_path),
            cwd=str(tmp_path),
        )
        assert chat.stdout is not None and chat.stderr is not None
        chat.stdout.readline()
        chat.stdout.close()  # what head does after its line
        assert chat.wait(120) == 141
        stderr = chat.stderr.read().decode()
        assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
