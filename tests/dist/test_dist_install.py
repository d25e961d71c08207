"""The built distributions, installed from a local directory, serve: what users and the ACP registry run.

``nox -s dist`` builds every wheel and sdist into ``dist/`` and runs these tests with
``LANGACP_DIST_DIR`` pointing there. Run alone, they build the wheels themselves with
``uv build``. Dependencies come from the package index as for a user; the langacp
distributions only from the local directory (none is on the index yet).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp import text_block

import langacp
from langacp.client import RecordingClient, spawn_agent

ROOT = Path(__file__).resolve().parents[2]
VERSION = langacp.__version__
PLUGIN_DIRS = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
PROJECTS = [tomllib.loads((p / "pyproject.toml").read_text())["project"] for p in PLUGIN_DIRS]
DISTRIBUTIONS = ["langacp", *(project["name"] for project in PROJECTS)]
PLUGGY_PLUGINS = {project["name"] for project in PROJECTS if "langacp" in project.get("entry-points", {})}
"""Distributions with a pluggy plugin (entry point group ``langacp``); the rest are drivers (stores, targets)."""
UV = shutil.which("uv")

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="session")
def dist_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the built wheels: ``LANGACP_DIST_DIR``, or built now with ``uv build``."""
    given = os.environ.get("LANGACP_DIST_DIR")
    if UV is None:
        if given:
            pytest.fail("LANGACP_DIST_DIR is set but uv is not installed (pip install uv)")
        pytest.skip("needs uv (pip install uv); nox -s dist runs these tests")
    if given:
        out = Path(given)
    else:
        out = tmp_path_factory.mktemp("dist")
        for package in [ROOT / "core", *PLUGIN_DIRS]:
            subprocess.run([UV, "build", "--wheel", "--quiet", "--out-dir", str(out), str(package)], check=True)
    wheels = {p.name.split("-")[0] for p in out.glob("*.whl")}
    missing = {name.replace("-", "_") for name in DISTRIBUTIONS} - wheels
    assert not missing, f"no wheel in {out} for {sorted(missing)}"
    return out


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment like a user's first run: own HOME and XDG dirs, no langacp settings, no API keys."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LANGACP_", "VIRTUAL_ENV", "ANTHROPIC_", "OPENAI_")) and k != "PYTHONPATH"
    }
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "home/.config"),
        XDG_DATA_HOME=str(tmp_path / "home/.local/share"),
    )
    # uv's cache stays the user's: a warm cache keeps this test fast, and cached files are checked by hash.
    env.setdefault("UV_CACHE_DIR", str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "uv"))
    Path(env["HOME"]).mkdir()
    yield env


def uvx(dist_dir: Path, package: str, *args: str) -> list[str]:
    """``uvx PACKAGE ARGS`` with the langacp distributions found in ``dist_dir``, never in a stale cache."""
    assert UV is not None
    fresh = [arg for name in DISTRIBUTIONS for arg in ("--reinstall-package", name)]
    return [
        UV,
        "tool",
        "run",
        "--isolated",
        "--python",
        sys.executable,
        "--find-links",
        str(dist_dir),
        *fresh,
        package,
        *args,
    ]


async def test_dist_install_uvx_serves_from_the_built_wheels(
    dist_dir: Path, home: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes-from-uvx.txt").write_text("hello\n")
    client = RecordingClient()
    with (tmp_path / "agent.stderr").open("w") as stderr:
        command = uvx(dist_dir, f"langacp[all]=={VERSION}", "serve", "--store", "memory")
        async with spawn_agent(command, client, env=home, cwd=str(work), stderr=stderr) as (conn, _process):
            init = await conn.initialize(protocol_version=1)
            assert init.agent_info is not None and init.agent_info.version == VERSION
            # Advertised by installed plugins only (langacp-content): the extra really installed them.
            assert init.agent_capabilities is not None
            assert init.agent_capabilities.prompt_capabilities is not None
            assert init.agent_capabilities.prompt_capabilities.image is True
            session = await conn.new_session(cwd=str(work))
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("list files")])
            assert response.stop_reason == "end_turn"
            assert "notes-from-uvx.txt" in json.dumps([str(u) for _sid, u in client.updates])


def test_dist_install_the_all_extra_installs_every_plugin(dist_dir: Path, home: dict[str, str], tmp_path: Path) -> None:
    """``pip install --find-links DIR "langacp[all]"`` in a fresh venv (the install is done by ``uv pip``:
    the same metadata and resolution rules, a minute faster here than pip)."""
    assert UV is not None
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = [UV, "pip", "install", "--quiet", "--python", str(venv / "bin/python"), "--find-links", str(dist_dir)]
    fresh = [arg for name in DISTRIBUTIONS for arg in ("--reinstall-package", name)]
    subprocess.run([*install, *fresh, f"langacp[all]=={VERSION}"], check=True, env=home)
    langacp_bin = str(venv / "bin/langacp")
    assert subprocess.run([langacp_bin, "--version"], capture_output=True, text=True, env=home).stdout.strip() == (
        f"langacp {VERSION}"
    )
    listed = json.loads(
        subprocess.run([langacp_bin, "plugins", "--json"], capture_output=True, text=True, env=home, check=True).stdout
    )["plugins"]
    loaded = {r["distribution"] for r in listed if r["status"] == "loaded"}
    freeze = subprocess.run(
        [UV, "pip", "list", "--python", str(venv / "bin/python"), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    installed = {p["name"]: p["version"] for p in json.loads(freeze.stdout)}
    for name in DISTRIBUTIONS:
        assert installed.get(name) == VERSION, name
    # Every pluggy plugin loads; the drivers (stevedore, not pluggy) are installed above.
    assert len(PLUGGY_PLUGINS) >= 10 and loaded == PLUGGY_PLUGINS


def test_dist_install_registry_entry_passes_the_registry_auth_check(
    dist_dir: Path, home: dict[str, str], tmp_path: Path
) -> None:
    """The registry's command (uvx, its package and args) answers the registry validator's initialize
    with an auth method of type agent or terminal, as its check requires (no key set, a sandbox HOME)."""
    entry = json.loads((ROOT / "registry/langacp/agent.json").read_text())
    uvx_entry = entry["distribution"]["uvx"]
    command = uvx(dist_dir, uvx_entry["package"], *uvx_entry.get("args", []))
    env = {**home, **uvx_entry.get("env", {}), "TERM": "dumb"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": 1,
            "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"},
            "clientCapabilities": {
                "terminal": True,
                "fs": {"readTextFile": True, "writeTextFile": True},
                "_meta": {"terminal_output": True, "terminal-auth": True},
            },
        },
    }
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=tmp_path,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(initialize) + "\n")
        process.stdin.flush()
        response = json.loads(process.stdout.readline())
        process.kill()
    methods = response["result"]["authMethods"]
    types = {m.get("type") or ("terminal" if "terminal-auth" in (m.get("_meta") or {}) else "agent") for m in methods}
    assert types & {"agent", "terminal"}, methods
    assert response["result"]["agentInfo"]["version"] == entry["version"] == VERSION
