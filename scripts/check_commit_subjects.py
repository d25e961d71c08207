"""Fail when a commit made since the subject rule was adopted has a subject over 72 characters.

Run by ``nox -s lint`` (``python scripts/check_commit_subjects.py [SINCE]``). Commits up to ``SINCE``
predate the rule and are not checked; outside a git checkout (an sdist) there is nothing to check.
"""

from __future__ import annotations

import subprocess
import sys

SINCE = "39e640c"
"""The last commit before CONTRIBUTING.md's subject rule."""
LIMIT = 72


def main(since: str = SINCE) -> int:
    try:
        log = subprocess.run(
            ["git", "log", "--format=%h %s", f"{since}..HEAD"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"commit subjects not checked: {exc}", file=sys.stderr)
        return 0
    long = [line for line in log.splitlines() if len(line.split(" ", 1)[1]) > LIMIT]
    for line in long:
        sha, subject = line.split(" ", 1)
        print(f"{sha}: subject is {len(subject)} characters (at most {LIMIT}): {subject[:80]}…", file=sys.stderr)
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
