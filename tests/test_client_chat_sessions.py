"""``langacp chat --list`` / ``--resume ID|last`` with sessions kept by langacp-sqlite, and
``langacp completion``."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHAT = [sys.executable, "-m", "langacp.cli", "chat"]


def _env(tmp_path: Path, version: int = 2) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["LANGACP_CHAT_PROTOCOL"] = str(version)  # v2: session/resume with replay; v1: session/load
    return env


def _agent(tmp_path: Path) -> list[str]:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    return ["--", sys.executable, "-m", "langacp.cli", "serve", "langacp.testing.agent:agent", "--store", store]


def _chat(args: list[str], cwd: Path, tmp_path: Path, version: int = 2) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CHAT, *args],
        cwd=cwd,
        env=_env(tmp_path, version),
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )


def _session_of(stdout: str) -> str:
    return str(json.loads(stdout.splitlines()[0])["sessionId"])


@pytest.mark.timeout(300)  # nine chat and agent processes
@pytest.mark.parametrize("version", [1, 2])
def test_list_and_resume(tmp_path: Path, version: int) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    agent = _agent(tmp_path)
    chat = functools.partial(_chat, version=version)
    none = chat(["--list", *agent], project, tmp_path)
    assert none.returncode == 0 and "no sessions in" in none.stdout
    first = chat(["--prompt", "echo first", "--json", *agent], project, tmp_path)
    assert first.returncode == 0, first.stderr
    second = chat(["--prompt", "echo second", "--json", *agent], project, tmp_path)
    other = chat(["--prompt", "echo other", "--json", *agent], elsewhere, tmp_path)
    ids = [_session_of(r.stdout) for r in (first, second, other)]

    listed = chat(["--list", "--json", *agent], project, tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["sessionId"] for r in rows] == [ids[1], ids[0]]  # this directory's only, newest first
    plain = chat(["--list", *agent], project, tmp_path).stdout
    assert ids[0] in plain and ids[2] not in plain

    # --resume last: the newest session of this directory, its history replayed, then the new turn
    resumed = chat(["--resume", "last", "--prompt", "history", "--json", *agent], project, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    lines = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert {line["sessionId"] for line in lines} == {ids[1]}
    text = "".join(
        line["update"]["content"]["text"]
        for line in lines
        if "update" in line and line["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert text.endswith("echo second | history")  # the model saw the earlier turn

    by_id = chat(["--resume", ids[0], "--prompt", "history", "--json", *agent], project, tmp_path)
    assert by_id.stdout.strip().splitlines()[-1] == json.dumps({"sessionId": ids[0], "stopReason": "end_turn"})

    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = chat(["--resume", "last", "--prompt", "hi", *agent], empty, tmp_path)
    assert nothing.returncode == 1 and "no session to resume" in nothing.stderr


def test_bash_completion_completes_commands_options_and_choices(tmp_path: Path) -> None:
    script = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "completion", "bash"], capture_output=True, text=True, check=True
    ).stdout
    (tmp_path / "c.bash").write_text(script)
    cases = {
        "langacp cha": "chat",
        "langacp che": "check",
        "langacp chat --res": "--resume",
        "langacp chat --rec": "--recursion-limit",  # chat TARGET takes serve's options too
        "langacp serve --log-level d": "debug",
        "langacp completion f": "fish",
        "langacp chat --li": "--list",
    }
    for line, expected in cases.items():
        words = line.split(" ")
        shell = f"source {tmp_path / 'c.bash'}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
        shell += '_langacp_complete; echo "${COMPREPLY[@]}"'
        out = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, check=True).stdout.split()
        assert out == [expected], (line, out)


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_completion(shell: str, tmp_path: Path) -> None:
    script = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "completion", shell], capture_output=True, text=True, check=True
    ).stdout
    assert "chat" in script and "resume" in script
    if shell == "fish":
        assert "__fish_seen_subcommand_from chat' -l resume" in script
    binary = shutil.which(shell)
    if binary is None:
        pytest.skip(f"{shell} is not installed here: the script is not run")
    (tmp_path / f"c.{shell}").write_text(script)
    check = ["-n", str(tmp_path / f"c.{shell}")] if shell == "zsh" else ["--no-execute", str(tmp_path / "c.fish")]
    subprocess.run([binary, *check], check=True)
