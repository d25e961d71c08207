"""What "always allow" for a command remembers: never more than its option name says.

Over real pipes, with langacp-client-tools running real commands in a real git repository:
each "always" is followed by the attacks of issue 17 (an option that writes, ``git -c`` alias
running a shell, a ``sed`` script that writes, chaining, substitution, redirection). Every one
of them is asked again (and rejected here), and none leaves its file behind.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from security_support import call, served

from langacp.client import PermissionRequest
from langacp.testing.editor import EditorClient

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "PATH": "/usr/bin:/bin",
}


def _git(where: Path, *commands: list[str]) -> None:
    for args in commands:
        subprocess.run(["git", *args], cwd=where, check=True, env=_GIT_ENV)


def _repo(work: Path) -> None:
    work.mkdir()
    (work / "notes.txt").write_text("one\ntwo\n")
    _git(work, ["init", "-q"], ["add", "notes.txt"], ["commit", "-qm", "first"])


async def _approve_then_attack(
    agent: Any, sid: str, approved_then_attacks: list[tuple[str, list[str]]]
) -> list[tuple[str, dict[str, Any]]]:
    """Each approved command answered "always", then each of its attacks (rejected if asked): every result."""
    results: list[tuple[str, dict[str, Any]]] = []
    for approved, attacks in approved_then_attacks:
        ANSWERS[:] = ["allow_always", *(["reject_once"] * len(attacks))]
        results.append((approved, await call(agent, sid, "run_command", command=approved)))
        for attack in attacks:
            results.append((attack, await call(agent, sid, "run_command", command=attack)))
    return results


def _assert_every_attack_was_asked(
    client: EditorClient, results: list[tuple[str, dict[str, Any]]], approved_then_attacks: list[tuple[str, list[str]]]
) -> None:
    asked = [r.tool_call.raw_input["command"] for r in client.permission_requests]  # type: ignore[index]
    assert asked == [command for command, _ in results]  # every attack was asked about, none ran unasked
    for command, result in results:
        approved = command in {a for a, _ in approved_then_attacks}
        assert result["status"] == ("completed" if approved else "failed"), command


def _always_then_reject(request: PermissionRequest) -> Any:
    """The first request of each approved command is answered "always"; every other one is rejected."""
    wanted = ANSWERS.pop(0)
    return next(o.option_id for o in request.options if o.kind == wanted)


ANSWERS: list[str] = []


async def test_always_allow_never_covers_a_writing_or_chained_command(tmp_path: Path) -> None:
    work = tmp_path / "work"
    _repo(work)
    client = EditorClient(answer=_always_then_reject, fs=False, terminal=False)
    approved_then_attacks = [
        (
            "git log --oneline -1",
            ["git log --output=pwned1", "git log -1 --output pwned1b", "git log -1; touch pwned2"],
        ),
        ("git -c core.pager=cat log -1", ["git -c 'alias.x=!touch pwned3' x"]),
        ("sed -n 1p notes.txt", ["sed -n 'w pwned4' notes.txt", "sed -i s/one/ONE/ notes.txt"]),
        ("cat notes.txt", ["cat notes.txt > pwned5", "cat notes.txt && touch pwned6", "cat $(touch pwned7)"]),
    ]
    async with served(work, tmp_path, client) as agent:
        sid = await agent.start()
        results = await _approve_then_attack(agent, sid, approved_then_attacks)
        covered = await call(agent, sid, "run_command", command="git log -2")  # what "always" did remember
    _assert_every_attack_was_asked(client, results, approved_then_attacks)
    named = {r.tool_call.raw_input["command"]: r.options for r in client.permission_requests}  # type: ignore[index]
    always = next(o.name for o in named["git log --oneline -1"] if o.kind == "allow_always")
    assert always.startswith("Always allow `git log` commands of `run_command` without options that write files")
    assert covered["status"] == "completed"
    assert sorted(p.name for p in work.iterdir()) == [".git", "notes.txt"]
    assert (work / "notes.txt").read_text() == "one\ntwo\n"


async def test_always_allow_for_git_never_covers_an_abbreviated_option_or_a_reflog_expiry(tmp_path: Path) -> None:
    """git takes any unambiguous abbreviation of a long option: ``--open-files-in=CMD`` is
    ``--open-files-in-pager=CMD`` and runs CMD. ``git reflog expire`` deletes the reflog."""
    work = tmp_path / "work"
    _repo(work)
    client = EditorClient(answer=_always_then_reject, fs=False, terminal=False)
    approved_then_attacks = [
        ("git grep one", ["git grep --open-files-in='touch pwned8' one", "git grep --open-files-in-p='touch p9' one"]),
        ("git log -1", ["git log -1 --outp=pwned10", "git log -1 --ext-dif"]),
        ("git reflog -1", ["git reflog expire --expire=now --all", "git reflog delete HEAD@1"]),
    ]
    async with served(work, tmp_path, client) as agent:
        sid = await agent.start()
        results = await _approve_then_attack(agent, sid, approved_then_attacks)
        covered = await call(agent, sid, "run_command", command="git grep -n two")  # what "always" did remember
    _assert_every_attack_was_asked(client, results, approved_then_attacks)
    assert covered["status"] == "completed"
    assert sorted(p.name for p in work.iterdir()) == [".git", "notes.txt"]
    reflog = subprocess.run(["git", "reflog"], cwd=work, capture_output=True, text=True, check=True).stdout
    assert "first" in reflog


async def test_always_allow_for_git_push_or_stash_never_covers_a_force_push_or_a_drop(tmp_path: Path) -> None:
    """``git push origin +old:main`` rewinds the remote branch, ``git stash drop`` loses the stash, and
    ``git worktree add DIR`` writes wherever DIR is."""
    work, remote = tmp_path / "work", tmp_path / "remote.git"
    _repo(work)
    _git(tmp_path, ["init", "-q", "--bare", str(remote)])
    _git(work, ["branch", "-M", "main"], ["tag", "old"], ["remote", "add", "origin", str(remote)])
    _git(work, ["commit", "-q", "--allow-empty", "-m", "second"])
    (work / "notes.txt").write_text("changed\n")
    client = EditorClient(answer=_always_then_reject, fs=False, terminal=False)
    approved_then_attacks = [
        ("git push -q origin main", ["git push -q origin +old:main", "git push -q origin :main"]),
        ("git stash -q", ["git stash drop -q", "git stash clear"]),
        ("git worktree add -q ../wt", ["git worktree add -q ../pwned12"]),  # writes where its operand says
    ]
    async with served(work, tmp_path, client) as agent:
        sid = await agent.start()
        results = await _approve_then_attack(agent, sid, approved_then_attacks)
    _assert_every_attack_was_asked(client, results, approved_then_attacks)
    log = subprocess.run(["git", "log", "--format=%s", "main"], cwd=remote, capture_output=True, text=True, check=True)
    assert log.stdout.split() == ["second", "first"]  # the remote branch was not rewound
    stashes = subprocess.run(["git", "stash", "list"], cwd=work, capture_output=True, text=True, check=True)
    assert len(stashes.stdout.splitlines()) == 1  # the stash was not dropped
    assert not (tmp_path / "pwned12").exists()


async def test_always_allow_never_covers_an_interpreter_run_by_a_wrapper(tmp_path: Path) -> None:
    """``python -c`` is remembered only exactly; ``stdbuf -oL sh -c …`` must be too (so must ``uv run python -c``)."""
    work = tmp_path / "work"
    _repo(work)
    client = EditorClient(answer=_always_then_reject, fs=False, terminal=False)
    approved, attack = "stdbuf -oL sh -c 'echo hi'", "stdbuf -oL sh -c 'touch pwned11'"
    async with served(work, tmp_path, client) as agent:
        sid = await agent.start()
        ANSWERS[:] = ["allow_always", "reject_once"]
        first = await call(agent, sid, "run_command", command=approved)
        second = await call(agent, sid, "run_command", command=attack)
    asked = [r.tool_call.raw_input["command"] for r in client.permission_requests]  # type: ignore[index]
    assert asked == [approved, attack]
    assert (first["status"], second["status"]) == ("completed", "failed")
    always = next(o.name for o in client.permission_requests[0].options if o.kind == "allow_always")
    assert always.startswith("Always allow exactly this `run_command` command")
    assert sorted(p.name for p in work.iterdir()) == [".git", "notes.txt"]


async def test_always_allow_for_git_checkout_never_covers_discarding_uncommitted_work(tmp_path: Path) -> None:
    """``git checkout main`` and ``git checkout .`` look alike to a pattern (a branch or a path), and
    ``git checkout .``, ``git restore .`` and ``git clean -fdq .`` throw the user's uncommitted work away."""
    work = tmp_path / "work"
    _repo(work)
    (work / "other.txt").write_text("other\n")
    _git(work, ["branch", "-M", "main"], ["add", "other.txt"], ["commit", "-qm", "second"])
    (work / "notes.txt").write_text("uncommitted work\n")
    (work / "build").mkdir()
    (work / "build" / "out.o").write_text("")
    (work / "draft.txt").write_text("an untracked draft\n")
    client = EditorClient(answer=_always_then_reject, fs=False, terminal=False)
    approved_then_attacks = [
        ("git checkout main", ["git checkout .", "git checkout -- notes.txt", "git checkout -f main"]),
        ("git restore other.txt", ["git restore .", "git restore notes.txt"]),
        ("git clean -fdq build", ["git clean -fdq .", "git clean -fdq draft.txt"]),
    ]
    async with served(work, tmp_path, client) as agent:
        sid = await agent.start()
        results = await _approve_then_attack(agent, sid, approved_then_attacks)
    _assert_every_attack_was_asked(client, results, approved_then_attacks)
    always = next(o.name for o in client.permission_requests[0].options if o.kind == "allow_always")
    assert always.startswith("Always allow exactly this `run_command` command (`git checkout main`)")
    assert (work / "notes.txt").read_text() == "uncommitted work\n"  # the user's change survived
    assert (work / "draft.txt").read_text() == "an untracked draft\n"
    assert not (work / "build").exists()  # the approved clean ran
