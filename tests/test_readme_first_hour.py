"""What a new user meets first: the README's quick start, its test command, ``nox -l``, the demo image.

* the quick start makes a virtual environment, as Install does, before installing;
* the quick ``nox -s core`` and how long ``nox`` takes are said where the test command first appears;
* ``nox -l`` lists the default sessions first, in the order they run, each described by a whole sentence;
* docs/images/chat-demo.svg is what ``scripts/render_demo.py`` draws today from the quick start's
  install (the core alone), and says so.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(text: str, language: str = "console") -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def _quick_start() -> str:
    start = README.index("## Quick start")
    return README[start : README.index("\n## ", start + 1)]


def test_the_quick_start_installs_into_a_virtual_environment() -> None:
    [block] = _blocks(_quick_start())
    lines = block.splitlines()
    assert lines[0].startswith("python3 -m venv .venv && . .venv/bin/activate"), block
    assert "pip install -e ./core" in lines[1] and "langacp chat" in lines[1], block
    install = _blocks(README[README.index("## Install") :])[0]
    assert install.splitlines()[0] == lines[0]  # the same first step as Install


def test_the_first_test_command_says_how_long_and_names_the_quick_one() -> None:
    quick = _quick_start()
    assert "nox -s core" in quick
    first = quick.index("nox")
    sentence = quick[first : quick.index("\n\n", first)]
    assert re.search(r"about (an hour|\d+ minutes)", sentence) and "nox -s core" in sentence, sentence
    assert "pip install nox && nox\n" not in quick  # not the full run with no word of its length


def _sessions() -> list[tuple[str, str, bool]]:
    """(name, the docstring's first line, whether it is a default session), in definition order."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    defaults: list[str] = []
    sessions: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "nox.options.sessions":
            defaults = ast.literal_eval(node.value)
        if isinstance(node, ast.FunctionDef) and any("nox.session" in ast.unparse(d) for d in node.decorator_list):
            name = node.name
            for decorator in node.decorator_list:
                for keyword in getattr(decorator, "keywords", []):
                    if keyword.arg == "name":
                        name = ast.literal_eval(keyword.value)
            sessions.append((name, (ast.get_docstring(node) or "").splitlines()[0]))
    return [(name, first, name in defaults) for name, first in sessions]


def test_nox_lists_sessions_in_the_order_they_run_each_with_a_whole_sentence() -> None:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    defaults = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "nox.options.sessions"
    )
    sessions = _sessions()
    assert [name for name, _, default in sessions if default] == defaults
    assert [default for _, _, default in sessions] == sorted((d for _, _, d in sessions), reverse=True)
    for name, first, _ in sessions:
        assert first.endswith((".", ")")) and first.count("(") == first.count(")"), (name, first)


@pytest.mark.timeout(300)
def test_the_demo_image_is_the_quick_start_s_own_output(tmp_path: Path) -> None:
    pytest.importorskip("pexpect")
    out = tmp_path / "chat-demo.svg"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "render_demo.py"), str(out)], check=True, timeout=240)
    committed = (ROOT / "docs" / "images" / "chat-demo.svg").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == committed, "stale: run python scripts/render_demo.py"
    assert "pip&#160;install&#160;-e&#160;./core&#160;(the&#160;core&#160;alone" in committed
    caption = README[README.index("chat-demo.svg") :][:300]
    assert "the core alone" in caption, caption
