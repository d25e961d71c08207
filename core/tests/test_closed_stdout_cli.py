"""``langacp plugins | head -1``: every listing command, its stdout closed, exits 141 without a traceback.

Each command runs as a subprocess whose stdout is a pipe with its read end already closed, so
its first write fails for certain (no race with a reader that has not gone yet).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from core_support import REPO, agent_env


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "langacp.cli", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=agent_env(),
            cwd=REPO,
            timeout=120,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "command",
    [
        ["plugins"],
        ["plugins", "--json"],
        ["check", "langacp.testing.agent:agent"],
        ["completion", "bash"],
        ["editors", "print", "zed"],
        ["--help"],
    ],
)
def test_a_closed_stdout_ends_the_command_quietly(command: list[str]) -> None:
    done = run_into_closed_pipe(*command)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode in (0, 141)
    if command[0] != "--help":  # argparse swallows its own write errors and exits 0
        assert done.returncode == 141
