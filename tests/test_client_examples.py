"""examples/multi_agent.py runs: a LangGraph graph delegating to two ACP agent processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "multi_agent.py"


def test_multi_agent_example(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# hi\n")
    (project / "app.py").write_text("x = 1\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env.update(LANGACP_DISABLE_PLUGIN_AUTOLOAD="1", LANGACP_DEMO_DELAY="0", XDG_DATA_HOME=str(tmp_path / "data"))
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), str(project)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "[surveyor]" in result.stdout and "`README.md`" in result.stdout and "`app.py`" in result.stdout
    assert "[reviewer] The surveyor answered in" in result.stdout
    events = [json.loads(line) for line in (tmp_path / "activity.jsonl").read_text().splitlines()]
    assert events[0]["type"] == "prompt:sent" and events[-1]["type"] == "message:complete"
