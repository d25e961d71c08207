"""Targets served by a driver (entry-point group ``langacp.targets``), e.g. ``serve --remote URL GRAPH``.

The core ships no driver; these tests hold with or without one installed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from langacp.target import TARGET_GROUP, DriverTarget, TargetError, load_target_driver


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "langacp.cli", "serve", *args],
        stdin=subprocess.PIPE,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_unknown_target_driver_is_a_clear_error() -> None:
    with pytest.raises(TargetError, match=f"no target driver 'no-such-driver' is installed.*{TARGET_GROUP}"):
        load_target_driver("no-such-driver")
    assert DriverTarget("remote", "agent", {"url": "http://x"}).options["url"] == "http://x"


def test_serve_remote_that_cannot_work_fails_at_once_with_one_line() -> None:
    # Port 9 (discard) has no LangGraph server: with the remote driver installed it cannot be
    # reached; without it the driver is missing. Either way: one line on stderr, exit 2.
    result = _serve("--remote", "http://127.0.0.1:9", "agent")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("langacp: "), result.stderr
    assert result.stdout == ""


def test_serve_remote_needs_a_graph() -> None:
    result = _serve("--remote", "http://127.0.0.1:9")
    assert result.returncode == 2
    assert "needs the GRAPH" in result.stderr
