"""An ACP v2 diff (``changes`` + ``git_patch``) folded back into v1's diff form (langacp.client.v2_diff).

The v2 diffs here are what langacp's own agent sends for a v1 diff (``langacp.protocol.v2.mapping``),
so the round trip v1 → v2 → v1 is checked, and the chat's rendering of both (it must be the same).
"""

from __future__ import annotations

import difflib
import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from langacp.chat.render import TerminalRenderer
from langacp.client.v2_diff import PATCH_META, diffs_v1, hunk_lines, parse_git_patch
from langacp.client.v2_fold import SessionFold
from langacp.protocol.v2.mapping import content_items

PATH = "/work/project/notes.txt"


def _v2(old: str | None, new: str, path: str = PATH) -> dict:
    (item,) = content_items([{"type": "diff", "path": path, "oldText": old, "newText": new}])
    return item


def _rendered(content: list[dict]) -> str:
    """What the chat shows for a tool call carrying ``content`` (v1 wire form)."""
    from acp.schema import ToolCallStart

    out = io.StringIO()
    renderer = TerminalRenderer(Console(file=out, width=200, color_system=None), Console(file=io.StringIO()))
    start = {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Write", "kind": "edit", "content": content}
    renderer.update("s", ToolCallStart.model_validate(start))
    return out.getvalue()


def test_a_small_file_comes_back_whole() -> None:
    (diff,) = diffs_v1(_v2("old line\n", "new line\n"))
    assert (diff["path"], diff["oldText"], diff["newText"]) == (PATH, "old line\n", "new line\n")
    assert diff["_meta"][PATCH_META]["operation"] == "modify"
    assert diff["_meta"][PATCH_META]["hunks"] == ["@@ -1 +1 @@", "-old line", "+new line"]


def test_an_added_file_and_a_last_line_without_its_end() -> None:
    (added,) = diffs_v1(_v2(None, "a\nb"))
    assert (added["oldText"], added["newText"]) == (None, "a\nb")
    assert added["_meta"][PATCH_META]["operation"] == "add"
    (changed,) = diffs_v1(_v2("x\ny", "x\nz\n"))
    assert (changed["oldText"], changed["newText"]) == ("x\ny", "x\nz\n")


def test_a_large_file_renders_as_v1_does_with_its_line_numbers() -> None:
    """Two changes far apart in a long file: the patch shows only their surroundings, and the chat
    shows the agent's hunks (line numbers of the whole file), exactly as it diffs v1's texts."""
    old = "".join(f"line {n}\n" for n in range(1, 201))
    new = old.replace("line 20\n", "line twenty\n").replace("line 150\n", "").replace("line 199\n", "199\n200\n")
    v1 = {"type": "diff", "path": PATH, "oldText": old, "newText": new}
    folded = diffs_v1(_v2(old, new))
    assert len(folded) == 1
    hunks = folded[0]["_meta"][PATCH_META]["hunks"]
    assert [h for h in hunks if h.startswith("@@")] == [
        "@@ -17,7 +17,7 @@",
        "@@ -147,7 +147,6 @@",
        "@@ -196,5 +195,6 @@",
    ]
    assert "line 100" not in folded[0]["oldText"]  # only what the patch shows
    assert _rendered(folded) == _rendered([v1])
    assert "@@ -147,7 +147,6 @@" in _rendered(folded)


@settings(max_examples=150, deadline=None)
@given(
    old=st.lists(st.sampled_from(["a", "b", "c", "", "d e"]), max_size=30),
    new=st.lists(st.sampled_from(["a", "b", "x", "", "d e"]), max_size=30),
    end=st.booleans(),
)
def test_any_change_renders_the_same_in_both_versions(old: list[str], new: list[str], end: bool) -> None:
    old_text = "\n".join(old) + ("\n" if end and old else "")
    new_text = "\n".join(new) + ("\n" if end and new else "")
    v1 = {"type": "diff", "path": PATH, "oldText": old_text, "newText": new_text}
    folded = diffs_v1(_v2(old_text, new_text))
    if old_text == new_text:  # nothing changed: no patch, the change said in words
        assert folded[0]["type"] == "content"
        return
    (diff,) = folded
    unified = difflib.unified_diff(old_text.splitlines(True), new_text.splitlines(True))
    assert hunk_lines(diff["_meta"][PATCH_META]["hunks"]) == [line.rstrip("\n") for line in list(unified)[2:]]
    if end:  # v1's rendering compares lines without their ends: the same unless a last line lost its end
        assert _rendered(folded) == _rendered([v1])


def test_several_files_quoted_paths_renames_and_binaries() -> None:
    patch = "\n".join(
        [
            'diff --git "/p/with\\ttab.txt" "/p/with\\ttab.txt"',
            "index 1..2 100644",
            '--- "/p/with\\ttab.txt"',
            '+++ "/p/with\\ttab.txt"',
            "@@ -1,2 +1,2 @@",
            " same",
            "--- a removed line that looks like a header",
            "+++ an added one",
            "diff --git /p/old name.txt /p/new name.txt",
            "similarity index 100%",
            "rename from /p/old name.txt",
            "rename to /p/new name.txt",
            "diff --git /p/gone.txt /p/gone.txt",
            "deleted file mode 100644",
            "--- /p/gone.txt",
            "+++ /dev/null",
            "@@ -1 +0,0 @@",
            "-bye",
            "\\ No newline at end of file",
            "diff --git /p/logo.png /p/logo.png",
            "Binary files /p/logo.png and /p/logo.png differ",
            "",
        ]
    )
    changes = [
        {"operation": "modify", "path": "/p/with\ttab.txt"},
        {"operation": "move", "oldPath": "/p/old name.txt", "path": "/p/new name.txt"},
        {"operation": "delete", "path": "/p/gone.txt"},
        {"operation": "modify", "path": "/p/logo.png"},
    ]
    assert [f.path for f in parse_git_patch(patch)] == [
        "/p/with\ttab.txt",
        "/p/new name.txt",
        "/p/gone.txt",
        "/p/logo.png",
    ]
    tab, moved, gone, logo = diffs_v1(
        {"type": "diff", "changes": changes, "patch": {"format": "git_patch", "text": patch}}
    )
    assert (tab["path"], tab["oldText"], tab["newText"]) == (
        "/p/with\ttab.txt",
        "same\n-- a removed line that looks like a header\n",
        "same\n++ an added one\n",
    )
    assert moved == {"type": "content", "content": {"type": "text", "text": "move /p/old name.txt → /p/new name.txt"}}
    assert (gone["oldText"], gone["newText"], gone["_meta"][PATCH_META]["operation"]) == ("bye", "", "delete")
    assert logo == {"type": "content", "content": {"type": "text", "text": "modify /p/logo.png"}}


def test_no_patch_says_what_changed() -> None:
    assert diffs_v1({"type": "diff", "changes": [{"operation": "add", "path": "/p/a"}]}) == [
        {"type": "content", "content": {"type": "text", "text": "add /p/a"}}
    ]


def test_the_fold_gives_tool_calls_and_permissions_the_v1_diff() -> None:
    fold = SessionFold()
    (start,) = fold.fold(
        {"sessionUpdate": "tool_call_update", "toolCallId": "w", "title": "Write", "content": [_v2("a\n", "b\n")]}
    )
    (diff,) = start["content"]
    assert (diff["type"], diff["path"], diff["oldText"], diff["newText"]) == ("diff", PATH, "a\n", "b\n")
