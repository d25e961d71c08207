"""``langacp.paths``: what a session's tools may touch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from langacp.paths import PathError, PathOutsideError, SessionPaths


def test_resolve_confines_to_the_cwd_and_additional_directories(tmp_path: Path) -> None:
    project, extra, outside = tmp_path / "project", tmp_path / "extra", tmp_path / "outside"
    for directory in (project / "src", extra, outside):
        directory.mkdir(parents=True)
    os.symlink(outside, project / "out")
    os.symlink(project / "src", project / "in")
    paths = SessionPaths(str(project), [str(extra)])

    assert paths.resolve("src/a.py") == project / "src" / "a.py"  # need not exist (a file to create)
    assert paths.resolve("in/a.py") == project / "src" / "a.py"  # a symlink that stays inside
    assert paths.resolve(str(extra / "b.py")) == extra / "b.py"
    assert paths.resolve("../extra/b.py") == extra / "b.py"
    assert paths.resolve(".") == project
    for bad in ("..", "../outside/x", str(outside / "x"), "out/x", "out", "/", "~", "src/../../outside"):
        with pytest.raises(PathOutsideError, match="outside the session's directories"):
            paths.resolve(bad, action="written")
    for malformed in ("", "  ", "a\x00b"):
        with pytest.raises(PathError):
            paths.resolve(malformed)
    assert not isinstance(PathError("x"), PathOutsideError)


def test_display_is_relative_to_the_cwd(tmp_path: Path) -> None:
    paths = SessionPaths(str(tmp_path / "p"), [str(tmp_path / "e")])
    assert paths.display(tmp_path / "p") == "."
    assert paths.display(tmp_path / "p" / "a" / "b.txt") == "a/b.txt"
    assert paths.display(tmp_path / "e" / "c.txt") == str(tmp_path / "e" / "c.txt")
    assert paths.display(tmp_path / "pp") == str(tmp_path / "pp")  # a sibling with the same prefix
