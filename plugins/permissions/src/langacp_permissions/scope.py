"""What an "always" answer covers: its scope, and the words that say so in the option names.

* A tool without a command: the tool, whatever its arguments ("Always allow `read_file` in
  this session").
* A tool whose arguments carry a command (a ``command`` or ``cmd`` string or list of words,
  plus an ``args`` list if there is one), whatever its kind: the **command prefix**, its first
  two words after shell-style splitting. A remembered prefix applies to calls of the same
  tool whose command has exactly the same first two words: `git status` covers
  `git status --short`, not `git stash`; `rm -i x` gives `rm -i`, which does not cover
  `rm -rf /`; a one-word command (`ls`) covers only itself.
* The exact command, when a prefix would say too little: the command holds a shell
  metacharacter (``; & | < > ` $ ( )`` or a line break, so it could chain or redirect), it
  cannot be split (unbalanced quotes), or its first word runs code or other commands given
  in its arguments (shells, interpreters, ``env``, ``sudo``, ``xargs``, ``find``, …).
* An ``execute``-kind tool without a recognisable command: the exact arguments.

A call that holds a metacharacter is never covered by a prefix, only by its exact command.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from typing import Any

from langacp.api import ToolCallInfo

__all__ = ["Scope", "scope_of"]

COMMAND_KEYS = ("command", "cmd")
PREFIX_WORDS = 2
MAX_SHOWN = 60
_METACHARACTERS = frozenset(";&|<>`$()\n\r")
_RUNS_ITS_ARGUMENTS = re.compile(
    r"^(sh|bash|zsh|fish|dash|ksh|csh|tcsh|pwsh|powershell|cmd|python[0-9.]*|pypy[0-9.]*|node|deno|bun|perl|ruby"
    r"|php|lua|osascript|env|sudo|doas|su|xargs|nohup|nice|ionice|timeout|time|watch|exec|eval|command|builtin"
    r"|ssh|find|parallel|busybox)$"
)


@dataclass(frozen=True)
class Scope:
    """A tool, optionally narrowed to a command prefix or to an exact command / exact arguments."""

    tool: str
    prefix: tuple[str, ...] | None = None
    exact: str | None = None
    """JSON of the exact command (a JSON string) or of the exact arguments (a JSON object)."""

    def describe(self) -> str:
        """What the scope covers, for option names: "`git status` commands of `bash`" …"""
        if self.prefix is not None:
            return f"`{self.tool}` commands starting with `{_shorten(shlex.join(self.prefix))}`"
        if self.exact is not None:
            value = json.loads(self.exact)
            if isinstance(value, str):
                return f"exactly this `{self.tool}` command (`{_shorten(value)}`)"
            return f"`{self.tool}` with exactly these arguments"
        return f"`{self.tool}`"

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"tool": self.tool}
        if self.prefix is not None:
            data["prefix"] = list(self.prefix)
        if self.exact is not None:
            data["exact"] = self.exact
        return data

    @classmethod
    def from_json(cls, data: Any) -> Scope | None:
        """A scope read back from session data; ``None`` if it is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("tool"), str):
            return None
        prefix, exact = data.get("prefix"), data.get("exact")
        if prefix is not None and not (isinstance(prefix, list) and all(isinstance(w, str) for w in prefix)):
            return None
        if exact is not None and not isinstance(exact, str):
            return None
        return cls(data["tool"], tuple(prefix) if prefix is not None else None, exact)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _command(args: dict[str, Any]) -> tuple[str, list[str] | None] | None:
    """(the command as one string, its words or ``None`` if it cannot be split), or ``None``: no command."""
    value = next((args[key] for key in COMMAND_KEYS if key in args), None)
    extra = args.get("args")
    extra_words = extra if isinstance(extra, list) and all(isinstance(w, str) for w in extra) else []
    if isinstance(value, str):
        try:
            words: list[str] | None = shlex.split(value) + extra_words
        except ValueError:
            words = None
        raw = value if not extra_words else f"{value} {shlex.join(extra_words)}"
        return raw, words
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        words = [*value, *extra_words]
        return shlex.join(words), words
    return None


def _prefix_is_enough(raw: str, words: list[str] | None) -> bool:
    if not words or any(c in _METACHARACTERS for c in raw) or any(c in _METACHARACTERS for w in words for c in w):
        return False
    return not _RUNS_ITS_ARGUMENTS.match(os.path.basename(words[0]))


def scope_of(call: ToolCallInfo, kind: str) -> Scope:
    """The scope an "always" answer about ``call`` (of kind ``kind``) remembers and is matched by."""
    command = _command(call.args)
    if command is not None:
        raw, words = command
        if words is not None and _prefix_is_enough(raw, words):
            return Scope(call.name, prefix=tuple(words[:PREFIX_WORDS]))
        return Scope(call.name, exact=json.dumps(raw))
    if kind == "execute":
        return Scope(call.name, exact=json.dumps(call.args, sort_keys=True, default=str))
    return Scope(call.name)
