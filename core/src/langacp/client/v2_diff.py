"""An ACP v2 ``diff`` (``changes`` and a ``git_patch``) folded back into v1's diff form, one per path.

v1 describes a file change as ``{path, oldText, newText}``; v2 as ``changes`` (each path's
operation) and an optional patch in Git's format. :func:`diffs_v1` reads the patch's sections
and gives, for each changed path, the v1 diff whose texts are the lines the patch shows (the old
side: context and removed lines; the new side: context and added lines), which is the whole file
when the patch covers it. The patch's own hunks and the operation are kept in
``_meta["langacp/patch"]`` (:data:`PATCH_META`), so a renderer can show the change exactly as
the agent diffed it, with its line numbers. A change the patch does not show (a binary file, a
rename alone, no patch) has no v1 diff form: it is a line of text content saying what changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PATCH_META", "diffs_v1", "hunk_lines", "parse_git_patch"]

PATCH_META = "langacp/patch"
"""The ``_meta`` key of a v1 diff folded from v2: ``operation``, ``hunks`` (the patch's ``@@``
sections, line by line) and, for a move, ``oldPath``."""

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


@dataclass
class FilePatch:
    """One ``diff --git`` section: its paths and the lines of its hunks."""

    old_path: str | None = None
    """``None``: ``/dev/null`` (an added file)."""
    new_path: str | None = None
    """``None``: ``/dev/null`` (a deleted file)."""
    old: list[str] = field(default_factory=list)
    """The old side's lines the hunks show (each with its line end, as in the file)."""
    new: list[str] = field(default_factory=list)
    hunks: list[str] = field(default_factory=list)
    """The ``@@`` lines and the hunk lines, as in the patch (without line ends)."""

    @property
    def path(self) -> str | None:
        return self.new_path if self.new_path is not None else self.old_path


def _unquote(path: str) -> str:
    """A path as Git writes it: ``"..."`` with C escapes (octal bytes in UTF-8) when unusual."""
    if not (len(path) >= 2 and path.startswith('"') and path.endswith('"')):
        return path
    out, body, i = bytearray(), path[1:-1], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(char.encode())
        i += 1
    return out.decode(errors="replace")


def _side(value: str) -> str | None:
    """A ``---`` / ``+++`` / ``rename`` path (Git may add a tab and a timestamp): ``None`` for ``/dev/null``."""
    path = _unquote(value.split("\t", 1)[0] if not value.startswith('"') else value)
    return None if path == "/dev/null" else path


def _git_header(line: str) -> tuple[str | None, str | None]:
    """The two paths of ``diff --git A B`` when they can be told apart (the same path, or quoted)."""
    rest = line[len("diff --git ") :]
    if rest.startswith('"'):
        match = re.match(r'("(?:[^"\\]|\\.)*") (.*)$', rest)
        if match:
            return _unquote(match.group(1)), _unquote(match.group(2))
    half = (len(rest) - 1) // 2
    if len(rest) % 2 == 1 and rest[half] == " " and rest[:half] == rest[half + 1 :]:
        return rest[:half], rest[:half]
    return None, None


def parse_git_patch(text: str) -> list[FilePatch]:
    """The sections of a patch in Git's ``--patch`` format (what is not a section is skipped)."""
    files: list[FilePatch] = []
    lines = text.split("\n")
    i = 0
    current: FilePatch | None = None
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("diff --git "):
            current = FilePatch(*_git_header(line))
            files.append(current)
        elif current is None:
            continue
        elif line.startswith("--- "):
            current.old_path = _side(line[4:])
        elif line.startswith("+++ "):
            current.new_path = _side(line[4:])
        elif line.startswith(("rename from ", "copy from ")):
            current.old_path = _side(line.split(" from ", 1)[1])
        elif line.startswith(("rename to ", "copy to ")):
            current.new_path = _side(line.split(" to ", 1)[1])
        elif line.startswith("new file mode"):
            current.old_path = None
        elif line.startswith("deleted file mode"):
            current.new_path = None
        elif (match := _HUNK.match(line)) is not None:
            i = _hunk(current, line, match, lines, i)
    return files


def _hunk(patch: FilePatch, header: str, match: re.Match[str], lines: list[str], i: int) -> int:
    """Read one hunk's lines (as many as its header counts); the index past it."""
    old_left = int(match.group(2)) if match.group(2) is not None else 1
    new_left = int(match.group(4)) if match.group(4) is not None else 1
    patch.hunks.append(header)
    while (old_left > 0 or new_left > 0) and i < len(lines):
        line = lines[i]
        kind, body = line[:1], line[1:] + "\n"
        if kind == " " or (line == "" and i + 1 < len(lines)):  # an empty context line some tools trim
            patch.old.append(body)
            patch.new.append(body)
            old_left, new_left = old_left - 1, new_left - 1
        elif kind == "-":
            patch.old.append(body)
            old_left -= 1
        elif kind == "+":
            patch.new.append(body)
            new_left -= 1
        elif kind != "\\":
            break
        patch.hunks.append(line)
        i += 1
        _no_newline(patch, line, lines, i)
    if i < len(lines) and lines[i].startswith("\\"):  # the last line has no line end
        _no_newline(patch, lines[i - 1], lines, i)
        patch.hunks.append(lines[i])
        i += 1
    return i


def _no_newline(patch: FilePatch, line: str, lines: list[str], i: int) -> None:
    """``\\ No newline at end of file`` after ``line``: that side's last line has no line end."""
    if i >= len(lines) or not lines[i].startswith("\\"):
        return
    for side, marks in ((patch.old, " -"), (patch.new, " +")):
        if line[:1] in marks and side and side[-1].endswith("\n"):
            side[-1] = side[-1][:-1]


def hunk_lines(hunks: Any) -> list[str] | None:
    """The hunk lines of a v1 diff's ``_meta`` entry, as a unified diff shows them (no ``\\`` notes)."""
    if not isinstance(hunks, list) or not all(isinstance(h, str) for h in hunks):
        return None
    return [h for h in hunks if not h.startswith("\\")]


def _text(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}


def _described(change: dict[str, Any]) -> str:
    operation = str(change.get("operation", "modify"))
    if change.get("oldPath") and change.get("path"):
        return f"{operation} {change['oldPath']} → {change['path']}"
    return f"{operation} {change.get('path', '')}"


def diffs_v1(item: dict[str, Any]) -> list[dict[str, Any]]:
    """A v2 ``diff`` content item as v1 content: a ``diff`` per path the patch shows, else a text line."""
    patch = item.get("patch")
    files = parse_git_patch(patch["text"]) if isinstance(patch, dict) and isinstance(patch.get("text"), str) else []
    by_path = {f.path: f for f in files if f.path is not None}
    changes = [c for c in item.get("changes") or [] if isinstance(c, dict)]
    if not changes:  # the patch alone (an agent that left out changes)
        changes = [{"operation": "modify", "path": f.path} for f in files if f.path is not None]
    converted: list[dict[str, Any]] = []
    for change in changes:
        operation = str(change.get("operation", "modify"))
        found = by_path.get(str(change.get("path")))
        if found is None and operation == "delete":
            found = next((f for f in files if f.old_path == change.get("path")), None)
        if found is None or (not found.hunks and operation not in ("add", "delete")):
            converted.append(_text(_described(change)))
            continue
        meta: dict[str, Any] = {"operation": operation, "hunks": found.hunks}
        if found.old_path is not None and found.old_path != change.get("path"):
            meta["oldPath"] = found.old_path
        diff: dict[str, Any] = {
            "type": "diff",
            "path": str(change.get("path")),
            "oldText": None if operation == "add" else "".join(found.old),
            "newText": "" if operation == "delete" else "".join(found.new),
            "_meta": {**(item.get("_meta") or {}), PATCH_META: meta},
        }
        converted.append(diff)
    return converted
