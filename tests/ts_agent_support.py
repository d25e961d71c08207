"""The TypeScript test agent (tests/fixtures/ts_agent) and client (tests/fixtures/ts_client), on npm
``@agentclientprotocol/sdk``, installed with npm.

The tests install them once per run (per xdist worker) in :func:`npm_dir` (fixtures in
tests/conftest.py and the TypeScript client tests); tests/bench/bench_client.py installs its own.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

SOURCE = Path(__file__).resolve().parent / "fixtures" / "ts_agent"
CLIENT_SOURCE = Path(__file__).resolve().parent / "fixtures" / "ts_client"


class NoNode(Exception):
    """node or npm is not installed."""


def npm_dir(factory: pytest.TempPathFactory) -> Path:
    """The one directory of a test run (per xdist worker) that every program and the SDK are installed in.

    The programs share one ``package.json`` dependency set, so npm installs the SDK there once per run.
    """
    return factory.getbasetemp() / "acp-sdk-programs"


def install_ts_agent(directory: Path) -> list[str]:
    """Copy the agent into ``directory``, ``npm install`` its SDK there; returns the command that runs it."""
    return _install(SOURCE, "agent.mjs", directory)


def install_ts_agent_v2(directory: Path) -> list[str]:
    """Copy the v2 agent (v1 and v2 behind the SDK's protocol router) into ``directory``, npm install; its command."""
    return _install(SOURCE, "agent_v2.mjs", directory)


def install_ts_client(directory: Path) -> list[str]:
    """Copy the client into ``directory``, ``npm install`` its SDK there; returns the command that runs it."""
    return _install(CLIENT_SOURCE, "client.mjs", directory)


def install_ts_updates_client(directory: Path) -> list[str]:
    """Copy the update-recording client into ``directory``, ``npm install`` its SDK there; the command that runs it."""
    return _install(CLIENT_SOURCE, "updates.mjs", directory)


def install_ts_scenarios_client(directory: Path) -> list[str]:
    """Copy the v1/v2 scenario client into ``directory``, ``npm install`` its SDK there; the command that runs it."""
    return _install(CLIENT_SOURCE, "scenarios.mjs", directory)


def _install(source: Path, script: str, directory: Path) -> list[str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise NoNode("node and npm are needed for the ACP TypeScript SDK programs (apt-get install nodejs npm)")
    directory.mkdir(parents=True, exist_ok=True)
    for name in (script, "package.json"):
        shutil.copy(source / name, directory / name)
    if not (directory / "node_modules" / "@agentclientprotocol" / "sdk").is_dir():
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=directory,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return [node, str(directory / script)]


def install_acp_sdk(directory: Path) -> Path:
    """``npm install`` the ACP TypeScript SDK (the test agent's version) into ``directory``; its package directory.

    Its ``schema/v1/schema.json`` (stable) and ``schema.unstable.json`` are the official JSON
    schemas the tests check langacp's updates against (read from the installed package, never copied).
    """
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        raise NoNode("node and npm are needed for the ACP TypeScript SDK (apt-get install nodejs npm)")
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOURCE / "package.json", directory / "package.json")
    package = directory / "node_modules" / "@agentclientprotocol" / "sdk"
    if not package.is_dir():
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=directory,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return package
