"""``-p NAME`` on the command line, over a real subprocess: a name that is not installed is an error.

The fixture distribution ``langacp-dash-plug`` (entry point ``dash-plug``, in tests/fixtures/names)
is the one plugin on the path; autoload is off, as in every core test.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from core_support import FIXTURES, REPO, agent_env

from langacp.plugins import PluginNameError, Plugins


def langacp(*args: str) -> subprocess.CompletedProcess[str]:
    env = agent_env(extra={"PYTHONPATH": str(FIXTURES / "names")})
    return subprocess.run(
        [sys.executable, "-m", "langacp.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


@pytest.mark.parametrize(
    "command",
    [["plugins"], ["serve", "langacp.testing.agent:agent"], ["check", "langacp.testing.agent:agent"]],
)
def test_enabling_a_plugin_that_is_not_installed_exits_2_with_one_line(command: list[str]) -> None:
    done = langacp(*command, "-p", "dash-plugs")
    assert done.returncode == 2, done.stderr
    assert command[0] == "check" or done.stdout == ""  # check has printed its first checks
    [line] = done.stderr.splitlines()
    assert line.startswith("langacp: -p dash-plugs: no plugin of that name is installed (installed: ")
    assert "dash-plug" in line.split("installed: ", 1)[1]


@pytest.mark.parametrize("spelling", ["dash-plug", "dash_plug", "Dash_Plug"])
def test_a_plugin_is_enabled_with_dash_or_underscore(spelling: str) -> None:
    done = langacp("plugins", "--json", "-p", spelling)
    assert done.returncode == 0, done.stderr
    records = {r["name"]: r["status"] for r in json.loads(done.stdout)["plugins"]}
    assert records["dash-plug"] == "loaded"


def test_naming_a_builtin_plugin_to_enable_is_allowed() -> None:
    done = langacp("plugins", "--json", "-p", "langacp.default.tools")
    assert done.returncode == 0, done.stderr
    assert {r["name"]: r["status"] for r in json.loads(done.stdout)["plugins"]}["langacp.default.tools"] == "builtin"


def test_the_manager_raises_for_an_unknown_enabled_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(FIXTURES / "names"))
    with pytest.raises(PluginNameError, match=r"^-p nope: no plugin of that name is installed .*dash-plug"):
        Plugins().load_entry_points(enabled=["nope"], autoload=False)
