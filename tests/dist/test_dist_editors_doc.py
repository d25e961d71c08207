"""docs/editors.md's shell blocks run as written: ``langacp editors print …`` and the acpx commands.

Each command line of each ``console`` block runs in bash (a fresh HOME, this environment's
``langacp`` and the ``acpx`` fixture's on PATH, a ``my_pkg/agent.py`` in the working directory
for the lines that name it) and must exit 0; the acpx prompts must end their turn. The JSON,
Lua and Emacs Lisp snippets are checked by core/tests/test_editors.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "editors.md"

pytestmark = pytest.mark.timeout(900)

MY_PKG = """
from langacp.testing.agent import TOOLS, make_model


def agent(setup):
    return setup.create_agent(make_model(), tools=TOOLS)
"""


def _commands() -> list[str]:
    blocks = re.findall(r"^```console\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    lines = [line for block in blocks for line in block.splitlines()]
    return [re.sub(r"\s+#.*$", "", line).strip() for line in lines if line.strip()]


def test_the_page_has_the_acpx_commands() -> None:
    commands = _commands()
    assert any(c.startswith("acpx langacp exec ") for c in commands), commands
    assert "acpx langacp sessions new" in commands
    assert any(c.startswith("acpx --agent ") and " exec " in c for c in commands), commands


def test_every_shell_command_of_the_editors_page_runs_as_written(acpx: str, tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    (work / "my_pkg").mkdir(parents=True)
    (work / "my_pkg" / "__init__.py").write_text("")
    (work / "my_pkg" / "agent.py").write_text(MY_PKG)
    (work / "seen-by-acpx.txt").write_text("hello\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    path = [str(Path(acpx).parent), str(Path(sys.executable).parent), env.get("PATH", "")]
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        PATH=os.pathsep.join(path),
    )
    for command in _commands():
        result = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        if command.startswith("acpx") and "sessions new" not in command:
            assert "seen-by-acpx.txt" in result.stdout and "end_turn" in result.stdout, (command, result.stdout)
