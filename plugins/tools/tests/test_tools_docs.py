"""docs/tool-kinds.md lists every built-in tool name under the kind langacp-tools gives it."""

from __future__ import annotations

import re
from pathlib import Path

from langacp_tools.kinds import EXACT_KINDS, PRIORITY, WORD_KINDS

DOC = Path(__file__).resolve().parents[3] / "docs" / "tool-kinds.md"
_ROW = re.compile(r"^\| `(\w+)` \| (.+) \|$", re.MULTILINE)


def _tables() -> tuple[dict[str, str], dict[str, str]]:
    names: dict[str, str] = {}
    words: dict[str, str] = {}
    for kind, cell in _ROW.findall(DOC.read_text(encoding="utf-8")):
        target = names if "`" in cell else words
        for entry in cell.split(", "):
            target[entry.strip("`")] = kind
    return names, words


def test_the_exact_name_table_matches_the_code() -> None:
    names, _ = _tables()
    assert names == EXACT_KINDS


def test_the_word_table_matches_the_code_in_priority_order() -> None:
    _, words = _tables()
    assert words == WORD_KINDS
    kinds_in_doc = list(dict.fromkeys(re.findall(r"^\| `(\w+)` \| [^`]+ \|$", DOC.read_text(), re.MULTILINE)))
    assert kinds_in_doc == list(PRIORITY)
