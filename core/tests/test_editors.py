"""``langacp editors print EDITOR``: each snippet parses as its editor reads it, names absolute paths, and serves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from core_support import agent_env

from langacp.client import RecordingClient, spawn_agent

EDITORS = ["zed", "jetbrains", "neovim", "emacs", "acpx"]


def editors_print(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "langacp.cli", "editors", "print", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=agent_env(),
    )


def command_of(editor: str, text: str) -> tuple[list[str], dict[str, str]]:
    """The command line and extra environment a snippet tells ``editor`` to start, read as the editor reads it."""
    if editor in ("zed", "jetbrains"):
        server = json.loads(text)["agent_servers"]["langacp"]
        if editor == "zed":
            assert server["type"] == "custom"
        return [server["command"], *server["args"]], server["env"]
    if editor == "acpx":
        agent = json.loads(text)["agents"]["langacp"]
        return [agent["command"], *agent["args"]], {}
    if editor == "neovim":
        return _run_codecompanion(text)
    if editor == "emacs":
        return _read_agent_shell(text)
    raise AssertionError(editor)


def _run_codecompanion(text: str) -> tuple[list[str], dict[str, str]]:
    """Run the Lua snippet (a real Lua interpreter) with CodeCompanion's two entry points stubbed."""
    lupa = pytest.importorskip("lupa")
    lua = lupa.LuaRuntime(unpack_returned_tuples=True)
    lua.execute(
        """
        captured = {}
        package.loaded["codecompanion"] = { setup = function(config) captured.config = config end }
        package.loaded["codecompanion.adapters"] = {
          extend = function(base, overrides) captured.base = base; return overrides end,
        }
        """
    )
    lua.execute(text)
    captured = lua.globals().captured
    config = captured.config
    assert config.interactions.chat.adapter == "langacp"
    adapter = config.adapters.acp.langacp()
    assert captured.base == "goose"  # an adapter with no auth method and no API-key env of its own
    assert adapter.name == "langacp"
    command = [adapter.commands.default[i] for i in range(1, len(adapter.commands.default) + 1)]
    env = dict(adapter.env.items()) if adapter.env is not None else {}
    return command, env


def _read_agent_shell(text: str) -> tuple[list[str], dict[str, str]]:
    """Read the Elisp snippet as s-expressions and take the client maker's :command and :command-params."""
    sexpdata = pytest.importorskip("sexpdata")
    forms = sexpdata.loads(f"(progn {text})")
    flat: list[Any] = []

    def walk(node: Any) -> None:
        flat.append(node)
        if isinstance(node, list):
            for child in node:
                walk(child)

    walk(forms)
    symbols = [n for n in flat if isinstance(n, list) and n and n[0] == sexpdata.Symbol("agent-shell--make-acp-client")]
    assert len(symbols) == 1
    call = symbols[0]
    keys = {str(call[i]): call[i + 1] for i in range(1, len(call) - 1, 2) if isinstance(call[i], sexpdata.Symbol)}
    params = keys[":command-params"]
    assert params[0] == sexpdata.Symbol("list")
    environment = keys[":environment-variables"]
    env: dict[str, str] = {}
    if environment not in (sexpdata.Symbol("nil"), []):
        assert environment[0] == sexpdata.Symbol("agent-shell-make-environment-variables")
        pairs = [v for v in environment[1:] if type(v) is str]  # Symbol is a str too
        env = dict(zip(pairs[::2], pairs[1::2], strict=True))
    return [keys[":command"], *params[1:]], env


@pytest.mark.parametrize("editor", EDITORS)
def test_editors_snippet_parses_and_names_this_installation(editor: str, tmp_path: Path) -> None:
    result = editors_print(editor, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    command, env = command_of(editor, result.stdout)
    assert os.path.isabs(command[0]) and os.access(command[0], os.X_OK), command
    assert Path(command[0]).parent == Path(sys.executable).parent  # this environment's langacp
    assert command[1:] == ["serve"] and env == {}


@pytest.mark.parametrize("editor", EDITORS)
def test_editors_uvx_pins_this_version(editor: str, tmp_path: Path) -> None:
    import langacp

    result = editors_print(editor, "--uvx", "--model", "anthropic:claude-sonnet-4-5", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    command, _env = command_of(editor, result.stdout)
    assert Path(command[0]).name == "uvx"
    package = f"langacp[all,anthropic]=={langacp.__version__}"  # the model's provider comes with it
    assert command[1:] == [package, "serve", "--model", "anthropic:claude-sonnet-4-5"]


def test_editors_file_target_becomes_absolute(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "mine.py").write_text("from langacp.testing.agent import agent\n")
    result = editors_print("zed", "agents/mine.py:agent", cwd=tmp_path)
    command, env = command_of("zed", result.stdout)
    assert command[1:] == ["serve", f"{tmp_path.resolve()}/agents/mine.py:agent"] and env == {}


def test_editors_missing_target_is_an_error(tmp_path: Path) -> None:
    for target in ("nowhere/mine.py:agent", "no_such_module_anywhere:agent"):
        result = editors_print("zed", target, cwd=tmp_path)
        assert result.returncode == 2 and "langacp editors:" in result.stderr and not result.stdout


def test_editors_unknown_editor_is_refused() -> None:
    result = editors_print("vscode")
    assert result.returncode == 2 and "invalid choice" in result.stderr


async def test_editors_snippet_serves_from_any_directory(tmp_path: Path) -> None:
    """A module TARGET importable only from the project directory: the snippet still serves when
    the editor starts it somewhere else (here: the filesystem root)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "my_local_agent.py").write_text("from langacp.testing.agent import agent\n")
    started = []
    for editor in ("zed", "emacs"):
        result = editors_print(editor, "my_local_agent:agent", "--store", "memory", cwd=project)
        assert result.returncode == 0, result.stderr
        command, env = command_of(editor, result.stdout)
        assert env == {"PYTHONPATH": str(project.resolve())}
        started.append((command, env))
    assert started[0] == started[1]  # both editors start the same: serving it once tries both
    command, env = started[0]
    client = RecordingClient()
    with (tmp_path / "stderr").open("w") as stderr:
        async with spawn_agent(command, client, env=agent_env(extra=env), cwd="/", stderr=stderr) as (conn, _p):
            await conn.initialize(protocol_version=1)
            session = await conn.new_session(cwd=str(project))
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
            assert response.stop_reason == "end_turn", (tmp_path / "stderr").read_text()


def test_editors_docs_show_what_the_command_prints() -> None:
    """docs/editors.md: each editor's block is exactly the ``--uvx --model anthropic:…`` snippet, and parses."""
    import re

    from core_support import REPO

    from langacp.editors import AgentCommand, snippet, uvx_package

    model = "anthropic:claude-sonnet-4-5"
    agent = AgentCommand("uvx", [uvx_package(model), "serve", "--model", model])
    doc = (REPO / "docs" / "editors.md").read_text()
    blocks = re.findall(r"```(json|lua|elisp)\n(.*?)\n```", doc, re.S)
    expected = {editor: snippet(editor, agent) for editor in EDITORS}
    assert [body for _lang, body in blocks] == [expected[e] for e in EDITORS]
    for editor in EDITORS:
        command, _env = command_of(editor, expected[editor])
        assert command == ["uvx", uvx_package(model), "serve", "--model", model]
