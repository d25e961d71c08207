"""The example plugin passes langacp's conformance suite, and one ``pip install`` command installs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from langacp.testing.conformance import PluginConformance

PACKAGE_DIR = Path(__file__).resolve().parents[1]


class TestConformance(PluginConformance):
    entry_point = "example_kinds"


def test_installed_by_one_pip_command_it_is_found_and_conforms(tmp_path: Path) -> None:
    """``pip install`` into an empty directory, then langacp finds that copy and the suite passes on it."""
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(PACKAGE_DIR)],
        check=True,
        timeout=600,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    listed = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "plugins", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    [record] = [r for r in json.loads(listed.stdout)["plugins"] if r["name"] == "example_kinds"]
    assert (record["status"], record["hooks"]) == ("loaded", ["langacp_permission_rules", "langacp_tool_kind"])
    located = subprocess.run(
        [sys.executable, "-c", "import langacp_example_kinds as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    assert Path(located.stdout.strip()).is_relative_to(site)  # the pip-installed copy, not the source tree
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{__file__}::TestConformance"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert suite.returncode == 0, suite.stdout + suite.stderr
    checks = [name for name in dir(PluginConformance) if name.startswith("test_")]
    assert f"{len(checks)} passed" in suite.stdout
