"""Render the README's demo: a real ``langacp chat`` run in a pseudo-terminal, saved as an SVG.

    python scripts/render_demo.py            # writes docs/images/chat-demo.svg
    python scripts/render_demo.py OUT.svg    # writes OUT.svg

It runs ``langacp chat --prompt PROMPT`` (the built-in agent, offline demo model: no key, the
same output every time) in a scratch project with a few files, captures the terminal output
with its colours, and has rich draw it. It shows what the README's quick start installs, the
core alone: installed plugins are not loaded (``LANGACP_DISABLE_PLUGIN_AUTOLOAD``), and the
image's title says so. A test renders it again and compares.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path

import pexpect
from rich.console import Console
from rich.text import Text

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images" / "chat-demo.svg"
PROMPTS = ["list files", "search for TODO"]
TITLE = "langacp chat — pip install -e ./core (the core alone, offline demo model)"


def run(prompt: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the quick start's install: the core alone
    env.update(TERM="xterm-256color", COLUMNS="92", LINES="40", XDG_DATA_HOME=str(cwd.parent / "data"))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "langacp.cli", "chat", "--prompt", prompt, "--cwd", str(cwd)],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        dimensions=(40, 92),
        timeout=120,
    )
    child.expect(pexpect.EOF)
    child.close()
    if child.exitstatus != 0:
        raise SystemExit(f"langacp chat exited {child.exitstatus}: {child.before}")
    return str(child.before).replace("\r\n", "\n")


def main(out: Path = OUT) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "my-project"
        (project / "src").mkdir(parents=True)
        (project / "README.md").write_text("# my-project\n\nA small example.\n")
        (project / "src" / "app.py").write_text("def main():\n    pass  # TODO: greet the user\n")
        (project / "pyproject.toml").write_text('[project]\nname = "my-project"\n')
        console = Console(record=True, width=92, force_terminal=True, color_system="truecolor", file=io.StringIO())
        for prompt in PROMPTS:
            console.print(Text.from_markup(f"[bold green]$[/] langacp chat --prompt [yellow]'{prompt}'[/]"))
            console.print(Text.from_ansi(run(prompt, project).rstrip()))
            console.print()
        out.parent.mkdir(parents=True, exist_ok=True)
        console.save_svg(str(out), title=TITLE)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
