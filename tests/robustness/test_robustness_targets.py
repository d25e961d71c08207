"""Your own agent from the command line: the README's snippet runs as written, a TARGET mistake is one line with
the closest name and the real fix, ends ``serve`` whether or not a client came, and ``chat TARGET`` serves it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from robustness_support import agent_env, raw_agent

REPO = Path(__file__).resolve().parents[2]
LANGACP = [sys.executable, "-m", "langacp.cli"]


def run(args: list[str], cwd: Path, tmp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        capture_output=True,
        text=True,
        env=agent_env(tmp, env),
        cwd=str(cwd),
        timeout=180,
        stdin=subprocess.DEVNULL,
    )


def _package(tmp: Path, code: str) -> Path:
    package = tmp / "my_pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "agent.py").write_text(code)
    return package / "agent.py"


def _readme_snippet() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Serve your own agent") :]
    return re.search(r"```python\n(# my_pkg/agent\.py.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_readme_snippet_runs_as_written_with_chat_target(tmp_path: Path) -> None:
    _package(tmp_path, _readme_snippet())
    said = run(
        [*LANGACP, "chat", "my_pkg.agent:agent", "--prompt", 'call shout {"text": "hello"}', "--yes"],
        tmp_path,
        tmp_path,
    )
    assert said.returncode == 0, said.stdout + said.stderr
    assert "HELLO" in said.stdout


def _serve_alone(target: str, cwd: Path, tmp: Path) -> tuple[int, str]:
    """``langacp serve TARGET`` with stdin open and nothing sent: no client ever speaks."""
    process = subprocess.Popen(
        [*LANGACP, "serve", target],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=agent_env(tmp),
        cwd=str(cwd),
    )
    try:
        code = process.wait(180)
    finally:
        process.kill()
        assert process.stdin is not None and process.stderr is not None
        process.stdin.close()
    return code, process.stderr.read().decode()


def test_an_attribute_typo_says_did_you_mean_and_ends_serve_without_a_client(tmp_path: Path) -> None:
    _package(tmp_path, "def agent(setup):\n    return None\n")
    code, stderr = _serve_alone("my_pkg.agent:agnt", tmp_path, tmp_path)
    assert code == 2, stderr
    last = stderr.strip().splitlines()[-1]
    assert "has no attribute 'agnt'; did you mean `agent`?" in last and last.endswith("fix: serve my_pkg.agent:agent")


def test_a_module_typo_names_the_closest_module(tmp_path: Path) -> None:
    _package(tmp_path, "def agent(setup):\n    return None\n")
    code, stderr = _serve_alone("my_pkg.agnet:agent", tmp_path, tmp_path)
    assert code == 2
    assert "did you mean `my_pkg.agent`?; fix: serve my_pkg.agent:agent" in stderr


def test_a_module_not_found_from_another_directory_names_the_working_directory(tmp_path: Path) -> None:
    _package(tmp_path, "def agent(setup):\n    return None\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, stderr = _serve_alone("my_pkg.agent:agent", elsewhere, tmp_path)
    assert code == 2
    [line] = stderr.strip().splitlines()
    assert f"in the working directory {elsewhere} or on PYTHONPATH" in line
    assert "fix: run langacp from the directory that holds my_pkg/" in line and "PYTHONPATH" in line.split("fix:")[1]


def test_a_failed_import_names_the_line_that_raised_not_the_error_above(tmp_path: Path) -> None:
    agent = _package(tmp_path, "import os\n\nmodel = undefined_name\n")
    code, stderr = _serve_alone("my_pkg.agent:agent", tmp_path, tmp_path)
    assert code == 2
    last = stderr.strip().splitlines()[-1]
    assert "NameError" in last and f"fix: see {agent}:3 (model = undefined_name)" in last
    assert "the error above" not in stderr
    checked = run([*LANGACP, "check", "my_pkg.agent:agent", "--store", "memory"], tmp_path, tmp_path)
    assert checked.returncode == 1 and f"fix: see {agent}:3" in checked.stdout


async def test_a_factory_that_fails_at_session_new_is_an_internal_error_with_its_cause(tmp_path: Path) -> None:
    agent = _package(
        tmp_path,
        "from langacp.models import demo\n\n\ndef agent(setup):\n    return setup.create_agent(demo(), tools=[...])\n",
    )
    async with raw_agent(tmp_path, target="my_pkg.agent:agent") as served:
        await served.request("initialize", {"protocolVersion": 1}, msg_id=1)
        reply = await served.request("session/new", {"cwd": str(tmp_path), "mcpServers": []}, msg_id=2)
        assert reply["error"]["code"] == -32603, reply
        details = str(reply["error"].get("data"))
        assert "failed to build this session's graph" in details and f"{agent}:5" in details


def test_serve_in_a_terminal_suggests_chat_with_the_same_target(tmp_path: Path) -> None:
    _package(
        tmp_path, "from langacp.models import demo\n\n\ndef agent(setup):\n    return setup.create_agent(demo())\n"
    )
    leader, follower = os.openpty()
    process = subprocess.Popen(
        [*LANGACP, "serve", "my_pkg.agent:agent"],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=agent_env(tmp_path),
        cwd=str(tmp_path),
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline().decode()
    finally:
        os.close(leader)
        os.close(follower)
        process.kill()
        process.wait(30)
    assert first.rstrip().endswith("To talk to it in a terminal: langacp chat my_pkg.agent:agent"), first


def test_chat_list_and_resume_with_the_core_alone_say_the_memory_store_forgets(tmp_path: Path) -> None:
    listed = run([*LANGACP, "chat", "--list", "--store", "memory"], tmp_path, tmp_path)
    assert listed.returncode == 0
    shown = listed.stdout + listed.stderr
    assert "session store is memory, which forgets every session" in shown and "langacp-sqlite" in shown
    resumed = run([*LANGACP, "chat", "--resume", "last", "--prompt", "hi", "--store", "memory"], tmp_path, tmp_path)
    assert resumed.returncode == 1
    assert "which forgets every session" in resumed.stderr and "--store sqlite:///" in resumed.stderr


def test_install_hints_name_the_clones_directory_from_a_clone(tmp_path: Path) -> None:
    probe = "from langacp.hints import install_command as c; print(c('langacp-postgres')); print(c('langacp', 'groq'))"
    here = run([sys.executable, "-c", probe], REPO, tmp_path).stdout.splitlines()
    assert here == ["pip install -e ./plugins/postgres", "pip install -e './core[groq]'"]
    away = run([sys.executable, "-c", probe], tmp_path, tmp_path).stdout.splitlines()
    assert away == [f"pip install -e {REPO / 'plugins' / 'postgres'}", f"pip install -e '{REPO / 'core'}[groq]'"]


@pytest.mark.skipif(__import__("importlib").util.find_spec("langchain_groq") is not None, reason="groq installed")
def test_a_missing_model_package_hint_works_from_the_clone(tmp_path: Path) -> None:
    checked = run([*LANGACP, "check", "--model", "groq:llama-3.3-70b", "--store", "memory"], REPO, tmp_path)
    assert checked.returncode == 1
    assert "(or: pip install -e './core[groq]')" in checked.stdout
