"""What an "always" answer covers: its scope, and the words that say so in the option names.

* A tool without a command: the tool, whatever its arguments ("Always allow `read_file` in
  this session").
* A tool whose arguments carry a command (a ``command`` or ``cmd`` string or list of words,
  plus an ``args`` list if there is one), whatever its kind, is parsed like a shell would
  (``shlex`` with shell punctuation) into the program and its words. Then:

  - **exact command only** when a pattern would say too little: the command is compound or
    redirected (``; & | < > ( )``), substitutes or expands anything (``$``, a backquote, a
    glob ``* ? [``, ``~``, ``{``, a comment, a line break), sets variables (``A=1 cmd``),
    cannot be split (unbalanced quotes), or its program runs code or commands given in its
    arguments or writes where its arguments say (shells, interpreters, ``env``, ``sudo``,
    ``xargs``, ``find``, ``sed``, ``awk``, ``tee``, ``dd``, ``rm``, ``git config``, git
    global options such as ``-c`` / ``-C``, an unknown git subcommand which may be an alias, a
    git subcommand that may discard uncommitted work: ``checkout``, ``restore``, ``clean``, or
    ``switch -f`` / ``--discard-changes``, ``reset --hard`` / ``--merge``, ``rm -f``);
  - **a read-only git subcommand** (``git log``, ``git diff``, ``git status``, …): that
    subcommand with any arguments *except* the options that write a file or run a program
    (``--output``, ``--ext-diff``, ``--textconv``, ``-O`` / ``--open-files-in-pager``, …, and their
    abbreviations, which git accepts) and the verbs that make it write (``git reflog expire``);
  - **another known git subcommand**: ``git <subcommand>`` with exactly the same options, never
    a destroying verb (``git stash drop``, ``git remote set-url``), a forcing / deleting push
    refspec (``+main``, ``:main``) or an option that discards uncommitted work (``git switch -f``);
  - **any other program**: the program and its leading words before the first option (at
    most two: ``npm run test``, ``cargo build``, ``cat notes.txt``) with **exactly the same
    options** (``pytest -q`` covers ``pytest -q tests/other.py``, not ``pytest --basetemp=/x``);
    later operands may differ.

  A call that is compound, substitutes, redirects, carries a denied option or may discard
  uncommitted work is never covered by a pattern (stored ones too), only by its own exact command.
* An ``execute``-kind tool without a recognisable command: the exact arguments.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from typing import Any

from langacp.api import ToolCallInfo

__all__ = ["Parsed", "Scope", "parse_command", "scope_of"]

COMMAND_KEYS = ("command", "cmd")
LEADING_WORDS = 2
"""Words after the program kept fixed in a pattern (``npm run test``)."""
MAX_SHOWN = 60
_UNSAFE_CHARACTERS = frozenset(";&|<>`$()\n\r*?[]{}~#!\\")
"""Characters that make a command more than one plain program call (shell operators, expansions)."""
_RUNS_OR_WRITES = re.compile(
    r"^(sh|bash|zsh|fish|dash|ksh|csh|tcsh|pwsh|powershell|cmd|python[0-9.]*|pypy[0-9.]*|node|deno|bun|perl|ruby"
    r"|php|lua|osascript|env|sudo|doas|su|xargs|nohup|nice|ionice|timeout|time|watch|exec|eval|command|builtin"
    r"|ssh|scp|rsync|find|parallel|busybox|sed|gsed|awk|gawk|mawk|nawk|tee|dd|rm|rmdir|shred|truncate|mv|cp|ln"
    r"|install|chmod|chown|chgrp|kill|pkill|killall|tar|zip|unzip|npx|pnpx|bunx|uvx|open|xdg-open|source"
    r"|crontab|at|vi|vim|nvim|emacs|nano|less|more|man|sqlite3|psql|mysql|stdbuf|setsid|taskset|chrt|flock|unbuffer"
    r"|strace|ltrace|script|fakeroot|chroot|nsenter|unshare|firejail|systemd-run|xvfb-run)$"
)
"""Programs whose arguments are code, other commands, or files they overwrite: remembered only exactly,
also when another program runs them (``uv run python -c …``, ``stdbuf -oL sh -c …``, ``pip install``)."""
GIT_READ_ONLY = frozenset(
    "status log show diff blame annotate grep shortlog describe rev-parse rev-list ls-files ls-tree cat-file "
    "show-ref reflog whatchanged".split()
)
"""git subcommands that read the repository: remembered with any options but :data:`GIT_DENIED`."""
GIT_RUNS_THINGS = frozenset(
    "config submodule bisect filter-branch filter-repo difftool mergetool daemon instaweb web--browse credential "
    "hook alias var archimport cvsimport svn p4 send-email request-pull clone init worktree".split()
)
"""git subcommands that run programs, change configuration (aliases, pagers) or write where their
operands say (``git clone URL DIR``, ``git init DIR``, ``git worktree add DIR``): exact only."""
GIT_WRITING_VERBS = {
    "reflog": frozenset({"expire", "delete", "drop"}),
    "stash": frozenset({"drop", "clear"}),
    "remote": frozenset({"remove", "rm", "rename", "set-url", "set-head", "set-branches", "prune"}),
    "worktree": frozenset({"remove", "prune"}),
    "notes": frozenset({"remove", "prune"}),
}
"""Verbs that make a git subcommand destroy or redirect what the user approved it for (``git reflog
expire``, ``git stash drop``, ``git remote set-url``): only ever remembered exactly."""
GIT_DISCARDS = frozenset({"checkout", "restore", "clean"})
"""git subcommands whose operands choose what they overwrite or delete, and a branch cannot be told
from a path (``git checkout main`` / ``git checkout .``, ``git restore .``, ``git clean -fd .``): the
user's uncommitted work is gone. Exact only, and a stored pattern never covers them."""
GIT_DISCARDING_OPTIONS = {
    "switch": ("-f", "--force", "--discard-changes"),
    "reset": ("--hard", "--merge"),
    "rm": ("-f", "--force"),
}
"""Options that make a git subcommand throw away uncommitted changes (also abbreviated, and a short
one inside a cluster): a command with one is remembered exactly, and a pattern never covers one."""
GIT_KNOWN = GIT_READ_ONLY | frozenset(
    "add commit push pull fetch clone init checkout switch restore reset revert merge rebase cherry-pick stash "
    "branch tag remote mv rm clean apply am format-patch archive gc prune worktree notes range-diff".split()
)
GIT_DENIED = (
    "--output",
    "--output-directory",
    "-o",
    "--ext-diff",
    "--textconv",
    "-O",
    "--open-files-in-pager",
    "--exec",
    "-x",
    "--upload-pack",
    "--receive-pack",
    "--config",
    "--config-env",
    "--template",
    "--no-index",
)
"""git options that write files, run programs, change config, page, or leave the repository."""
_GIT_DENIED_SHORT = frozenset(o[1] for o in GIT_DENIED if len(o) == 2)
_GIT_DENIED_LONG = tuple(o for o in GIT_DENIED if o.startswith("--"))


@dataclass(frozen=True)
class Parsed:
    """A command as its words, and whether it is one plain program call."""

    raw: str
    words: list[str] | None
    """The words after shell-style splitting; ``None`` when it cannot be split."""
    simple: bool
    """No operator, redirection, substitution, expansion or variable assignment."""


def parse_command(raw: str) -> Parsed:
    """Split ``raw`` as a shell would, telling a plain program call from anything more."""
    try:
        lexer = shlex.shlex(raw, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        words = list(lexer)
    except ValueError:
        return Parsed(raw, None, False)
    simple = bool(words) and not any(c in _UNSAFE_CHARACTERS for c in raw)
    simple = simple and not any(_is_operator(w) for w in words) and "=" not in words[0]
    return Parsed(raw, words, simple)


def _is_operator(word: str) -> bool:
    return bool(word) and all(c in ";&|<>()" for c in word)


def _is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"


def _git_denied(word: str) -> bool:
    if word.startswith("--"):
        # git takes any unambiguous abbreviation of a long option (--open-files-in=CMD runs CMD):
        # a word that could abbreviate a denied option is denied (a full option it prefixes, such
        # as --text of --textconv, is only asked about again).
        name = word.split("=", 1)[0]
        return name != "--" and any(o.startswith(name) for o in _GIT_DENIED_LONG)
    if _is_option(word):  # a cluster of short options (-po) or one with its value attached (-ofile)
        return any(c in _GIT_DENIED_SHORT for c in word[1:])
    return False


def _has_option(word: str, options: tuple[str, ...]) -> bool:
    """Whether ``word`` is one of ``options``: a long one abbreviated, or a short one in a cluster (``-qf``)."""
    if word.startswith("--"):
        name = word.split("=", 1)[0]
        return name != "--" and any(o.startswith(name) for o in options if o.startswith("--"))
    return _is_option(word) and any(o[1] in word[1:] for o in options if len(o) == 2)


def _git_writes(sub: str, rest: list[str]) -> bool:
    """Whether git ``sub`` with the words ``rest`` may write, run or destroy more than the approved call.

    A subcommand that is only remembered exactly (:data:`GIT_RUNS_THINGS`, :data:`GIT_DISCARDS`), a
    denied or discarding option (:data:`GIT_DISCARDING_OPTIONS`), a destroying verb
    (:data:`GIT_WRITING_VERBS`), or a ``git push`` refspec that forces (``+main``) or deletes
    (``:main``) a remote branch.
    """
    if sub in GIT_RUNS_THINGS or sub in GIT_DISCARDS or any(_git_denied(w) for w in rest):
        return True
    if any(_has_option(w, GIT_DISCARDING_OPTIONS.get(sub, ())) for w in rest):
        return True
    operands = [w for w in rest if not _is_option(w)]
    verbs = GIT_WRITING_VERBS.get(sub, frozenset())
    return any(w in verbs for w in operands) or (sub == "push" and any(w.startswith(("+", ":")) for w in operands))


@dataclass(frozen=True)
class Scope:
    """A tool, optionally narrowed to a command pattern or to an exact command / exact arguments.

    A command pattern is ``prefix`` (the program and its fixed leading words) with either
    exactly ``options`` (sorted option words) or, when ``options`` is ``None``, any options
    but the ``denied`` ones.
    """

    tool: str
    prefix: tuple[str, ...] | None = None
    options: tuple[str, ...] | None = None
    denied: tuple[str, ...] = ()
    exact: str | None = None
    """JSON of the exact command (a JSON string) or of the exact arguments (a JSON object)."""

    def describe(self) -> str:
        """What the scope covers, for option names: "`git log` commands of `run_command` …"."""
        if self.prefix is not None:
            shown = _shorten(shlex.join(self.prefix))
            if self.options is None:
                named = ", ".join(o for o in self.denied if o in ("--output", "--ext-diff", "--textconv"))
                return (
                    f"`{shown}` commands of `{self.tool}` without options that write files or run programs ({named}, …)"
                )
            if self.options:
                return (
                    f"`{shown}` commands of `{self.tool}` with exactly the options "
                    f"`{_shorten(' '.join(self.options))}` (other arguments may differ)"
                )
            return f"`{shown}` commands of `{self.tool}` without options (other arguments may differ)"
        if self.exact is not None:
            value = json.loads(self.exact)
            if isinstance(value, str):
                return f"exactly this `{self.tool}` command (`{_shorten(value)}`)"
            return f"`{self.tool}` with exactly these arguments"
        return f"`{self.tool}`"

    def covers(self, call: ToolCallInfo) -> bool:
        """Whether this scope covers ``call``."""
        if call.name != self.tool:
            return False
        command = _command(call.args)
        if self.exact is not None:
            if command is not None:
                return json.dumps(command.raw) == self.exact
            return json.dumps(call.args, sort_keys=True, default=str) == self.exact
        if self.prefix is None:
            return command is None  # a tool-wide answer never covers a command: those have their own scopes
        if command is None or not command.simple or command.words is None:
            return False
        words = command.words
        if tuple(words[: len(self.prefix)]) != self.prefix:
            return False
        rest = words[len(self.prefix) :]
        if self.options is None:
            return not _git_writes(self.prefix[-1], rest) if self.denied else True
        if os.path.basename(self.prefix[0]) == "git":
            if len(self.prefix) < 2 or _git_writes(self.prefix[1], rest):
                return False
        elif _runs_a_runner(words[1:]):
            return False
        return tuple(sorted(w for w in rest if _is_option(w))) == self.options

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"tool": self.tool}
        if self.prefix is not None:
            data["pattern"] = {
                "prefix": list(self.prefix),
                "options": list(self.options) if self.options is not None else None,
                "denied": list(self.denied),
            }
        if self.exact is not None:
            data["exact"] = self.exact
        return data

    @classmethod
    def from_json(cls, data: Any) -> Scope | None:
        """A scope read back from session data; ``None`` if it is not one (older formats are not trusted)."""
        if not isinstance(data, dict) or not isinstance(data.get("tool"), str) or "prefix" in data:
            return None
        pattern, exact = data.get("pattern"), data.get("exact")
        if exact is not None and not isinstance(exact, str):
            return None
        if pattern is None:
            return cls(data["tool"], exact=exact)
        if not isinstance(pattern, dict) or exact is not None:
            return None
        prefix, options, denied = pattern.get("prefix"), pattern.get("options"), pattern.get("denied", [])
        if not _words(prefix) or not prefix or (options is not None and not _words(options)) or not _words(denied):
            return None
        if options is None and (  # "any options" is only ever made for a read-only git subcommand
            tuple(denied) != GIT_DENIED
            or len(prefix) != 2
            or os.path.basename(prefix[0]) != "git"
            or prefix[1] not in GIT_READ_ONLY
        ):
            return None
        return cls(data["tool"], tuple(prefix), tuple(options) if options is not None else None, tuple(denied), None)


def _words(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(w, str) for w in value)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _command(args: dict[str, Any]) -> Parsed | None:
    """The call's command, parsed; ``None``: the call has no command."""
    value = next((args[key] for key in COMMAND_KEYS if key in args), None)
    extra = args.get("args")
    extra_words = extra if isinstance(extra, list) and all(isinstance(w, str) for w in extra) else []
    if isinstance(value, str):
        return parse_command(value if not extra_words else f"{value} {shlex.join(extra_words)}")
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        return parse_command(shlex.join([*value, *extra_words]))
    return None


def _pattern(tool: str, words: list[str]) -> Scope | None:
    """The pattern an "always" about this plain command remembers; ``None``: only the exact command."""
    program = words[0]
    if _RUNS_OR_WRITES.match(os.path.basename(program)):
        return None
    if os.path.basename(program) == "git":
        sub = words[1] if len(words) > 1 else ""
        if sub not in GIT_KNOWN or sub in GIT_RUNS_THINGS:  # a global option (-c, -C), an alias, a runner
            return None
        rest = words[2:]
        if _git_writes(sub, rest):
            return None
        if sub in GIT_READ_ONLY:
            return Scope(tool, prefix=(program, sub), denied=GIT_DENIED)
        return Scope(tool, prefix=(program, sub), options=tuple(sorted(w for w in rest if _is_option(w))))
    if _runs_a_runner(words[1:]):
        return None
    fixed = [program]
    for word in words[1:]:
        if _is_option(word) or len(fixed) > LEADING_WORDS:
            break
        fixed.append(word)
    rest = words[len(fixed) :]
    return Scope(tool, prefix=tuple(fixed), options=tuple(sorted(w for w in rest if _is_option(w))))


def _runs_a_runner(words: list[str]) -> bool:
    """Whether an operand names a program of :data:`_RUNS_OR_WRITES`: a wrapper runs it (``uv run python -c``)."""
    return any(not _is_option(w) and _RUNS_OR_WRITES.match(os.path.basename(w)) for w in words)


def scope_of(call: ToolCallInfo, kind: str) -> Scope:
    """The scope an "always" answer about ``call`` (of kind ``kind``) remembers."""
    command = _command(call.args)
    if command is not None:
        if command.simple and command.words:
            pattern = _pattern(call.name, command.words)
            if pattern is not None:
                return pattern
        return Scope(call.name, exact=json.dumps(command.raw))
    if kind == "execute":
        return Scope(call.name, exact=json.dumps(call.args, sort_keys=True, default=str))
    return Scope(call.name)
