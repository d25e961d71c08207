"""A wrong value in a config file: ``check`` finds it (FILE:LINE and the fix), ``serve`` and ``chat`` say once,
in one line, what it means for the session; an invalid file is reported once, in the same words everywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from robustness_support import agent_env, raw_agent

LANGACP = [sys.executable, "-m", "langacp.cli"]
TYPO = '[permissions.kinds]\nread = "alow"\n'


def _user_config(tmp: Path, text: str) -> Path:
    config = tmp / "config" / "langacp" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    return config


def run(args: list[str], tmp: Path, version: int | None = None) -> subprocess.CompletedProcess[str]:
    """``args`` as a process (``version``: the ACP version ``langacp chat`` asks for)."""
    env = agent_env(tmp)
    if version is not None:
        env["LANGACP_CHAT_PROTOCOL"] = str(version)
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=str(tmp), timeout=120)


HOW_SHOWN = {1: "langacp: configuration not applied:\n- ", 2: "Configuration not applied: "}
"""How the chat shows what the agent could not apply: v1 sends it to a client without notices as
an agent message, v2 as a ``notice`` (every v2 client takes them)."""


def test_check_finds_a_wrong_value_with_its_line_and_fix(tmp_path: Path) -> None:
    config = _user_config(tmp_path, f"# mine\n{TYPO}")
    result = run([*LANGACP, "check", "langacp.testing.agent:agent", "--store", "memory", "-p", "permissions"], tmp_path)
    assert result.returncode == 1, result.stdout
    [problem] = [line for line in result.stdout.splitlines() if line.startswith("PROBLEM")]
    assert f"{config}:3: [permissions.kinds] read: 'alow' is not" in problem
    assert 'fix: did you mean "allow"?' in problem and "every tool call asks for permission" in problem


def test_check_validates_every_plugins_table(tmp_path: Path) -> None:
    _user_config(tmp_path, '[plans]\nbuiltin_tool = "no"\n[modes.review]\nkinds = "read"\n')
    (tmp_path / ".langacp.toml").write_text("[stop_reasons]\nmax_model_calls = -1\n")
    plugins = ["-p", "plans", "-p", "modes", "-p", "stop-reasons"]
    result = run([*LANGACP, "check", "langacp.testing.agent:agent", "--store", "memory", *plugins], tmp_path)
    assert result.returncode == 1
    problems = "\n".join(line for line in result.stdout.splitlines() if line.startswith("PROBLEM"))
    assert "config.toml:2: [plans] builtin_tool must be true or false, not 'no'" in problems
    assert "config.toml:4: [modes.review] kinds must be a list of strings" in problems
    assert ".langacp.toml:2: [stop_reasons] max_model_calls must be a whole number >= 0" in problems
    assert "the project's [stop_reasons] is ignored" in problems


async def test_serve_reports_a_wrong_value_once_in_one_line(tmp_path: Path) -> None:
    config = _user_config(tmp_path, TYPO)
    async with raw_agent(tmp_path, plugins=["permissions", "tools"]) as agent:
        for _ in range(2):
            await agent.start(str(tmp_path))
        lines = [line for line in agent.stderr().splitlines() if "alow" in line]
        assert len(lines) == 1, agent.stderr()
        assert f"{config}:2:" in lines[0] and lines[0].endswith(
            "until it is fixed, every tool call asks for permission"
        )


async def test_an_invalid_file_is_reported_once_by_serve(tmp_path: Path) -> None:
    config = _user_config(tmp_path, "[permissions\n")
    async with raw_agent(tmp_path, plugins=["permissions", "modes", "mcp", "tools"]) as agent:
        await agent.start(str(tmp_path))
        lines = [line for line in agent.stderr().splitlines() if str(config) in line]
        assert len(lines) == 1, agent.stderr()
        assert "your config file is ignored, cannot read it" in lines[0]
        assert "every tool call asks for permission" in lines[0]


@pytest.mark.parametrize("version", [1, 2])
def test_chat_says_what_a_wrong_value_means_without_verbose(tmp_path: Path, version: int) -> None:
    config = _user_config(tmp_path, TYPO)
    agent = [*LANGACP, "serve", "langacp.testing.agent:agent", "-p", "permissions", "-p", "tools"]
    result = run([*LANGACP, "chat", "--prompt", "hello", "--", *agent], tmp_path, version)
    shown = result.stdout + result.stderr
    assert shown.count(f"{config}:2:") == 1, shown
    assert "every tool call asks for permission" in shown
    assert f"{HOW_SHOWN[version]}{config}:2:" in shown, shown


@pytest.mark.parametrize("version", [1, 2])
def test_chat_reports_an_invalid_file_once(tmp_path: Path, version: int) -> None:
    config = _user_config(tmp_path, "[permissions\n")
    agent = [*LANGACP, "serve", "langacp.testing.agent:agent", "-p", "permissions", "-p", "modes"]
    result = run([*LANGACP, "chat", "--prompt", "hello", "--", *agent], tmp_path, version)
    shown = result.stdout + result.stderr
    assert shown.count(str(config)) == 1, shown
    assert HOW_SHOWN[version] in shown, shown
