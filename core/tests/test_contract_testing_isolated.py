"""Production code never imports ``langacp.testing``: the demo model runs on an internal module.

* the import-linter contract names every core module but ``langacp.testing`` (so a new one is covered);
* serving the default agent with the demo model, in a fresh interpreter, loads no ``langacp.testing`` module.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = "Production code never imports langacp.testing"


def test_the_contract_covers_every_core_module_but_testing() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    [contract] = [c for c in config["contracts"] if c["name"].startswith(CONTRACT)]
    package = ROOT / "core" / "src" / "langacp"
    modules = {
        f"langacp.{p.stem}"
        for p in package.iterdir()
        if (p.suffix == ".py" and not p.name.startswith("__")) or (p / "__init__.py").exists()
    }
    assert set(contract["source_modules"]) == modules - {"langacp.testing"}
    assert contract["forbidden_modules"] == ["langacp.testing"]


def test_the_default_agent_and_its_demo_model_load_no_testing_code() -> None:
    script = (
        "import sys\n"
        "from langacp.default_agent.agent import agent\n"
        "from langacp.default_agent.demo_model import DemoChatModel\n"
        "from langacp.cli import build_parser\n"
        "DemoChatModel()\n"
        "print(sorted(m for m in sys.modules if m.startswith('langacp.testing')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stdout
