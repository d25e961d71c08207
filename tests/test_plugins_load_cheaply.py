"""Every plugin of this repository loads without importing LangChain, LangGraph or the ACP SDK.

Plugins are loaded before ``initialize`` is answered, and an editor waits for that answer:
a plugin that imports LangChain at import time adds more than half a second to every start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLUGINS = sorted(p.name for p in (REPO / "plugins").iterdir() if (p / "pyproject.toml").exists())
STORE_DRIVERS = {"sqlite", "postgres"}  # stevedore drivers, opened after initialize: not pluggy plugins

PROBE = """
import json, sys
from langacp.plugins import load_plugins
plugins = load_plugins()
names = {m.split(".")[0] for m in sys.modules}
heavy = sorted(names & {"acp", "langchain", "langchain_core", "langgraph", "mcp"})
print(json.dumps({"loaded": [r.name for r in plugins.records if r.status == "loaded"], "heavy": heavy}))
"""


def test_all_installed_plugins_load_without_heavy_imports() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True)
    report = json.loads(result.stdout)
    expected = {name.replace("-", "_") for name in PLUGINS} - STORE_DRIVERS
    assert expected <= {name.replace("-", "_") for name in report["loaded"]}, result.stderr
    assert report["heavy"] == [], f"imported at plugin load: {report['heavy']}"
