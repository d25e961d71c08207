"""Tool name → kind: exact names, MCP-qualified names, whole words, the riskiest reading, pinned kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from langacp_tools import kind_of
from langacp_tools.config import load_pins, pin_kinds
from langacp_tools.kinds import EXACT_KINDS, KINDS, split_words


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        # LangChain / Deep Agents file tools
        ("ls", "read"),
        ("read_file", "read"),
        ("write_file", "edit"),
        ("edit_file", "edit"),
        ("glob", "search"),
        ("grep", "search"),
        ("execute", "execute"),
        ("write_todos", "think"),
        ("task", "think"),
        # MCP filesystem, git and fetch servers
        ("read_text_file", "read"),
        ("read_multiple_files", "read"),
        ("create_directory", "edit"),
        ("list_directory", "read"),
        ("directory_tree", "read"),
        ("move_file", "move"),
        ("search_files", "search"),
        ("get_file_info", "read"),
        ("git_status", "read"),
        ("git_diff", "read"),
        ("git_commit", "edit"),
        ("fetch", "fetch"),
        # shells, think tools, plans and modes
        ("shell", "execute"),
        ("bash", "execute"),
        ("terminal", "execute"),
        ("run_shell_command", "execute"),
        ("run_command", "execute"),
        ("think", "think"),
        ("sequentialthinking", "think"),
        ("update_plan", "think"),
        ("switch_mode", "switch_mode"),
        ("exit_plan_mode", "switch_mode"),
    ],
)
def test_common_tools_by_exact_name(name: str, kind: str) -> None:
    assert kind_of(name) == kind


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("filesystem__read_text_file", "read"),
        ("mcp__filesystem__move_file", "move"),
        ("filesystem_read_text_file", "read"),  # langchain-mcp-adapters prefix
        ("git_git_status", "read"),
        ("fetch__fetch", "fetch"),
        ("github__create_issue", "edit"),
        ("server__deleteRepository", "delete"),
    ],
)
def test_mcp_qualified_names_are_judged_by_their_tool_part(name: str, kind: str) -> None:
    assert kind_of(name) == kind


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("format_text", "other"),  # "format" holds no "rm"
        ("thread_summary", "other"),  # "thread" holds no "read"
        ("add", "other"),
        ("spreadsheet_stats", "other"),
        ("readFile", "read"),
        ("getWeather", "read"),
        ("HTTPRequest", "fetch"),
        ("remove-branch", "delete"),
        ("web.search", "fetch"),
        ("find_symbol", "search"),
        ("renameSymbol", "move"),
        ("run_tests", "execute"),
        ("create_plan", "edit"),
        ("set_mode_fast", "switch_mode"),
        ("get_mode", "read"),
        ("request_approval", "other"),
        ("list_commands", "read"),
        # several kinds: the riskiest wins
        ("search_and_replace", "edit"),
        ("list_then_delete", "delete"),
        ("read_and_run", "execute"),
        ("fetch_and_save", "edit"),
    ],
)
def test_heuristic_on_whole_words(name: str, kind: str) -> None:
    assert kind_of(name) == kind


def test_words_split_at_separators_and_camel_case() -> None:
    assert split_words("mcp__fs.readTextFile-v2") == ["mcp", "fs", "read", "text", "file", "v", "2"]
    assert split_words("HTTPRequest") == ["http", "request"]


def test_every_exact_kind_is_an_acp_kind() -> None:
    assert set(EXACT_KINDS.values()) <= set(KINDS)


def test_pins_win_over_the_table_and_match_the_full_name_or_tool_part() -> None:
    assert kind_of("read_file", {"read_file": "other"}) == "other"
    assert kind_of("fs__read_file", {"read_file": "edit"}) == "edit"
    assert kind_of("deploy", {"deploy": "execute"}) == "execute"
    assert kind_of("deploy", {"deploy": "nonsense"}) == "other"  # not a kind: ignored


def test_pins_from_the_user_over_code_never_from_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "xdg"
    (user / "langacp").mkdir(parents=True)
    (user / "langacp" / "config.toml").write_text(
        '[permissions]\nmode = "ask"\n\n[tools.kinds]\ndeploy = "execute"\nlaunch = "execute"\n'
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / ".langacp.toml").write_text(
        '[tools]\nother_key = 1\n\n[tools.kinds]\nlaunch = "fetch"\nbogus = "explode"\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user))
    pin_kinds({"deploy": "other", "ship": "edit"})
    try:
        pins = load_pins(str(project))
    finally:
        from langacp_tools import config

        config._code_pins.clear()
    # The project's pins are the core's to apply (only where riskier): langacp.trust.project_kind.
    assert pins == {"deploy": "execute", "ship": "edit", "launch": "execute"}


def test_a_broken_config_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    (tmp_path / ".langacp.toml").write_text("[tools.kinds\n")
    assert load_pins(str(tmp_path)) == {}
    (tmp_path / ".langacp.toml").write_text('tools = "not a table"\n')
    assert load_pins(str(tmp_path)) == {}


def test_pin_kinds_rejects_unknown_kinds() -> None:
    with pytest.raises(ValueError, match="unknown tool kind"):
        pin_kinds({"x": "teleport"})
