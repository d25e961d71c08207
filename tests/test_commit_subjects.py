"""scripts/check_commit_subjects.py, which ``nox -s lint`` runs, refuses a long commit subject."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "check_commit_subjects.py"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "PATH": "/usr/bin:/bin",
}


def _commit(repo: Path, subject: str) -> str:
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", subject], cwd=repo, env=GIT_ENV, check=True)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, env=GIT_ENV, capture_output=True, text=True, check=True
    ).stdout.strip()


def _check(repo: Path, since: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), since], cwd=repo, capture_output=True, text=True)


def test_a_subject_over_72_characters_fails_and_a_short_one_passes(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, env=GIT_ENV, check=True)
    base = _commit(tmp_path, "base: long ago " + "x" * 100)  # before SINCE: not checked
    _commit(tmp_path, "a short subject")
    assert _check(tmp_path, base).returncode == 0
    long = "a subject that goes on" + " and on" * 10
    _commit(tmp_path, long)
    result = _check(tmp_path, base)
    assert result.returncode == 1
    assert f"subject is {len(long)} characters" in result.stderr
