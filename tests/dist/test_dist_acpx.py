"""acpx (the headless ACP client, from npm) drives ``langacp serve`` configured by ``langacp editors print acpx``.

The acpx binary: the ``acpx`` fixture (conftest.py; ``nox -s dist`` runs this test).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(600)


def test_dist_acpx_runs_a_prompt_through_the_printed_config(acpx: str, tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".acpx").mkdir(parents=True)
    work.mkdir()
    (work / "seen-by-acpx.txt").write_text("hello\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"))
    printed = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "editors", "print", "acpx", "--store", "memory"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    (home / ".acpx" / "config.json").write_text(printed)
    result = subprocess.run(
        [acpx, "--approve-all", "--format", "json", "--timeout", "240", "langacp", "exec", "list files"],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    messages = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    results = [m["result"] for m in messages if isinstance(m.get("result"), dict) and "stopReason" in m["result"]]
    assert results and results[-1]["stopReason"] == "end_turn"
    assert "seen-by-acpx.txt" in result.stdout
    initialize = next(m["result"] for m in messages if isinstance(m.get("result"), dict) and "agentInfo" in m["result"])
    assert initialize["agentInfo"]["name"] == "langacp"
