"""Tool name → ACP tool kind: exact names of common tools first, then whole words of the name.

Kinds drive both how an editor draws a call and how permission policies group it, so when a
name holds words of several kinds the riskiest wins (``search_and_replace`` is an edit,
``list_then_delete`` a delete). Words are whole: ``format_text`` is not a delete (no ``rm``
inside ``format``) and ``thread_summary`` is not a read.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Literal

__all__ = ["EXACT_KINDS", "KINDS", "WORD_KINDS", "Kind", "kind_of", "split_words", "tool_part"]

Kind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
KINDS: tuple[Kind, ...] = (
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
)


def _names(kind: Kind, names: str) -> dict[str, Kind]:
    return dict.fromkeys(names.split(), kind)


EXACT_KINDS: dict[str, Kind] = {
    # LangChain / Deep Agents file tools, langacp's default and client tools, MCP filesystem and git.
    **_names(
        "read",
        "read_file read_text_file read_media_file read_multiple_files read_many_files list_files ls list_dir "
        "list_directory list_directory_with_sizes directory_tree get_file_info list_allowed_directories view "
        "view_file cat git_status git_diff git_diff_staged git_diff_unstaged git_log git_show git_branch",
    ),
    **_names(
        "search",
        "search_files glob grep file_search find_files codebase_search grep_search search_code search_nodes",
    ),
    **_names(
        "edit",
        "write_file edit_file create_file create_directory str_replace_based_edit_tool str_replace_editor "
        "apply_patch multi_edit multiedit notebook_edit append_file git_add git_commit git_reset git_checkout "
        "git_create_branch git_init",
    ),
    **_names("delete", "delete_file remove_file delete_directory"),
    **_names("move", "move_file rename_file"),
    **_names(
        "execute",
        "execute shell bash terminal run_shell_command run_command run_terminal_cmd execute_command exec "
        "run_in_terminal python_repl code_interpreter",
    ),
    **_names(
        "think",
        "think sequentialthinking sequential_thinking write_todos todo_write update_plan task",
    ),
    **_names(
        "fetch",
        "fetch web_fetch fetch_url web_search http_request requests_get tavily_search tavily_search_results_json "
        "brave_web_search duckduckgo_search",
    ),
    **_names("switch_mode", "switch_mode exit_plan_mode enter_plan_mode set_mode"),
}
"""Exact tool names (or the tool part of an MCP-qualified name) and their kinds."""

WORD_KINDS: dict[str, Kind] = {
    **_names("delete", "delete del remove rm rmdir unlink erase destroy drop purge trash"),
    **_names("move", "move mv rename relocate"),
    **_names("execute", "run exec execute shell bash sh zsh terminal command cmd spawn eval repl subprocess"),
    **_names(
        "edit",
        "write edit create update modify patch replace insert append save apply put mkdir touch overwrite commit",
    ),
    **_names("fetch", "fetch http https download curl wget url web browse scrape crawl webpage"),
    **_names("search", "search find grep glob query lookup locate rg ripgrep"),
    **_names("read", "read get view cat show open load list ls describe inspect info stat head tail status diff"),
    **_names("think", "think thinking reason reasoning reflect plan planning todo todos brainstorm"),
}
"""Words of a tool name and the kind each suggests (``mode`` is handled apart: see :func:`kind_of`)."""

PRIORITY: tuple[Kind, ...] = ("delete", "move", "execute", "edit", "fetch", "search", "read", "think")
"""When words suggest several kinds, the first of these wins: the riskiest reading."""

_MODE_VERBS = {"switch", "set", "change", "enter", "exit", "toggle", "select", "use"}
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_words(name: str) -> list[str]:
    """Lower-case words of a tool name, split at ``_ - . / :`` and camelCase."""
    return [w.lower() for part in re.split(r"[_\-./:\s]+", name) for w in _CAMEL.findall(part)]


def tool_part(name: str) -> str:
    """The tool part of an MCP-qualified name (``server__tool`` → ``tool``, ``mcp__s__t`` → ``t``)."""
    return name.rsplit("__", 1)[-1] if "__" in name.strip("_") else name


def _exact(name: str) -> Kind | None:
    for candidate in (name, name.lower()):
        if candidate in EXACT_KINDS:
            return EXACT_KINDS[candidate]
    return None


def _known_suffix(name: str) -> Kind | None:
    """``filesystem_read_text_file`` → the kind of ``read_text_file`` (a ``server_tool`` name).

    Only known names of two or more words count: a one-word suffix (``read``) goes through the
    word heuristic, which also sees the rest of the name.
    """
    parts = name.lower().split("_")
    for start in range(1, len(parts) - 1):
        kind = EXACT_KINDS.get("_".join(parts[start:]))
        if kind is not None:
            return kind
    return None


def _by_words(name: str) -> Kind | None:
    words = split_words(name)
    if "mode" in words and (_MODE_VERBS & set(words)):
        return "switch_mode"
    found = {WORD_KINDS[w] for w in words if w in WORD_KINDS}
    return next((kind for kind in PRIORITY if kind in found), None)


def kind_of(name: str, pins: Mapping[str, str] | None = None) -> Kind:
    """The ACP kind of a tool called ``name``; ``pins`` (tool name → kind) win over everything."""
    if pins:
        for candidate in (name, tool_part(name)):
            pinned = pins.get(candidate)
            if pinned in KINDS:
                return pinned
    return _kind_by_name(name)


@functools.lru_cache(maxsize=1024)
def _kind_by_name(name: str) -> Kind:
    """The kind the name alone says (kept: a session asks it for each call of the same few tools)."""
    part = tool_part(name)
    return _exact(name) or _exact(part) or _known_suffix(part) or _by_words(part) or "other"
