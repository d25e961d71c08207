"""Titles and locations built from a call's arguments, paths shown relative to the session cwd."""

from __future__ import annotations

from pathlib import Path

import pytest

from langacp_tools.diffs import proposed_text
from langacp_tools.kinds import kind_of
from langacp_tools.locations import locations_of
from langacp_tools.titles import title_of


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    (tmp_path / "src").mkdir()
    (tmp_path / "core").mkdir()
    return str(tmp_path)


@pytest.mark.parametrize(
    ("name", "args", "title"),
    [
        ("read_file", {"path": "README.md"}, "Read README.md"),
        ("read_text_file", {"path": "{cwd}/docs/a.md"}, "Read docs/a.md"),
        ("read_file", {"file_path": "/etc/hosts"}, "Read /etc/hosts"),
        ("read_multiple_files", {"paths": ["a.py", "b.py"]}, "Read a.py, b.py"),
        ("run_command", {"command": "pytest -q"}, "Run `pytest -q`"),
        ("bash", {"command": "echo a\necho b"}, "Run `echo a…`"),
        ("search_files", {"pattern": "TODO", "path": "src"}, "Search for TODO in src/"),
        ("grep", {"pattern": "TODO"}, "Search for TODO"),
        ("list_files", {"path": "src"}, "List src/"),
        ("ls", {"path": "{cwd}"}, "List ."),
        ("edit_file", {"path": "core/x.py", "old_string": "a", "new_string": "b"}, "Edit core/x.py"),
        ("write_file", {"path": "new.txt", "content": "x"}, "Write new.txt"),
        ("create_directory", {"path": "build"}, "Create build"),
        ("delete_file", {"path": "old.txt"}, "Delete old.txt"),
        ("move_file", {"source": "a.txt", "destination": "src/b.txt"}, "Move a.txt → src/b.txt"),
        ("fetch", {"url": "https://example.com"}, "Fetch https://example.com"),
        ("web_search", {"query": "acp spec"}, "Search the web for acp spec"),
        ("write_todos", {"todos": []}, "Update the plan"),
        ("sequentialthinking", {"thought": "hmm"}, "Think"),
        ("switch_mode", {"mode": "plan"}, "Switch to plan mode"),
        ("add", {"a": 1}, None),
        ("read_file", {"offset": 3}, None),
    ],
)
def test_titles(name: str, args: dict[str, object], title: str | None, cwd: str) -> None:
    args = {k: v.replace("{cwd}", cwd) if isinstance(v, str) else v for k, v in args.items()}
    directories = {f"{cwd}/src", f"{cwd}/core"}  # what the plugin's middleware found, off the event loop
    assert title_of(name, kind_of(name), args, cwd, directories) == title


def test_a_title_never_looks_at_the_file_system(cwd: str) -> None:
    """Made on the event loop: a directory not known to be one is shown as the argument spells it."""
    assert title_of("search_files", "search", {"pattern": "TODO", "path": "src"}, cwd) == "Search for TODO in src"
    assert title_of("search_files", "search", {"pattern": "TODO", "path": "src/"}, cwd) == "Search for TODO in src/"
    assert title_of("list_files", "read", {"path": "core"}, cwd) == "List core/"


def test_locations_are_absolute_with_the_line(cwd: str) -> None:
    locations = locations_of({"path": "src/a.py", "line": 7}, cwd)
    assert [(loc.path, loc.line) for loc in locations] == [(f"{cwd}/src/a.py", 7)]
    moved = locations_of({"source": "a", "destination": "/tmp/b"}, cwd)
    assert [loc.path for loc in moved] == [f"{cwd}/a", "/tmp/b"]
    assert [loc.path for loc in locations_of({"paths": ["x", "./x", "y"]}, cwd)] == [f"{cwd}/x", f"{cwd}/y"]
    assert locations_of({"url": "https://example.com/a", "target": "https://x"}, cwd) == []
    assert locations_of({"file_path": "a", "offset": 10}, cwd)[0].line == 10


def test_proposed_text_from_arguments() -> None:
    assert proposed_text(None, {"path": "n", "content": "new"}) == "new"
    assert proposed_text("old", {"path": "n", "content": "new"}) == "new"
    assert proposed_text("a b a", {"old_string": "a", "new_string": "c"}) == "c b a"
    assert proposed_text("a b a", {"old_string": "a", "new_string": "c", "replace_all": True}) == "c b c"
    assert proposed_text("a b", {"old_string": "zz", "new_string": "c"}) is None
    edits = [{"oldText": "a", "newText": "b"}, {"oldText": "b b", "newText": "c"}]
    assert proposed_text("a b", {"edits": edits}) == "c"
    assert proposed_text("x", {"path": "x"}) is None
