"""The policy, its configuration files and the scope of "always", in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langacp import PermissionVerdict, SessionContext, ToolCallInfo
from langacp.stores import SessionRecord
from langacp.trust import load_layers
from langacp_permissions import Policy, Rule, configured_policy, load_policy, policy_for, scope_of, set_policy
from langacp_permissions.decisions import decide
from langacp_permissions.policy import Ruling, stricter
from langacp_permissions.remembered import recall, remember
from langacp_permissions.scope import GIT_DENIED, Scope


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "config" / "langacp").mkdir(parents=True)
    (tmp_path / "project").mkdir()
    return tmp_path


def _user(home: Path, text: str) -> None:
    (home / "config" / "langacp" / "config.toml").write_text(text)


def _project(home: Path, text: str) -> None:
    (home / "project" / ".langacp.toml").write_text(text)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("read", "allow"), ("search", "allow"), ("think", "allow"), ("fetch", "allow")]
    + [(k, "ask") for k in ("edit", "delete", "move", "execute", "other", "switch_mode")],
)
def test_defaults(kind: str, expected: str) -> None:
    assert Policy().decide("any_tool", kind).decision == expected


def test_deny_wins_then_tool_rules_beat_kind_rules_then_the_last_rule_wins() -> None:
    policy = Policy().with_rules(
        Rule("allow", kind="execute"),
        Rule("ask", tool="run_*"),
        Rule("allow", tool="run_tests"),
        Rule("deny", kind="delete"),
        Rule("allow", tool="rm"),
    )
    assert policy.decide("bash", "execute").decision == "allow"  # kind rule overrides the default
    assert policy.decide("run_shell", "execute").decision == "ask"  # a tool rule beats the kind rule
    assert policy.decide("run_tests", "execute").decision == "allow"  # the later tool rule wins
    assert policy.decide("rm", "delete").decision == "deny"  # deny wins over the allow for `rm`
    assert policy.decide("read_file", "read").decision == "allow"


def test_restrictions_only_tighten() -> None:
    policy = Policy().with_restrictions(Rule("allow", kind="*"), Rule("ask", tool="cat"), Rule("deny", tool="curl"))
    assert policy.decide("grep", "search").decision == "allow"
    assert policy.decide("cat", "read").decision == "ask"
    assert policy.decide("curl", "fetch").decision == "deny"
    assert policy.decide("edit_file", "edit").decision == "ask"  # the restriction's allow loosens nothing


def test_a_policy_decides_each_tool_and_kind_once_with_the_same_answer() -> None:
    """Rulings are kept per policy; they are what the rules say, and the rules cannot change under them."""
    from langacp_permissions.policy import _evaluate

    rules = [Rule("allow", kind="execute"), Rule("ask", tool="run_*"), Rule("deny", tool="rm*")]
    policy = Policy(rules=tuple(rules), restrictions=(Rule("deny", tool="curl"),))
    calls = [(tool, kind) for tool in ("bash", "run_x", "rm", "curl", "cat") for kind in ("execute", "read", "edit")]
    for tool, kind in calls * 2:
        fresh = _evaluate(policy.rules, tool, kind) or Ruling("ask")
        tighter = _evaluate(policy.restrictions, tool, kind)
        if tighter is not None and stricter(tighter.decision, fresh.decision) != fresh.decision:
            fresh = tighter
        assert policy.decide(tool, kind) == fresh
    assert policy._rulings is not None and len(policy._rulings) == len(calls)  # asked twice, decided once
    derived = policy.with_rules(Rule("deny", kind="read"))
    assert derived.decide("cat", "read").decision == "deny"  # a derived policy decides afresh
    assert policy.decide("cat", "read").decision == "ask"  # no rule of its own matches
    assert derived == Policy(rules=(*rules, Rule("deny", kind="read")), restrictions=policy.restrictions)

    listed = [Rule("ask", tool="bash")]
    policy = Policy(rules=listed)  # type: ignore[arg-type]  # a list: held as a tuple, so changing it changes nothing
    assert policy.decide("bash", "execute").decision == "ask"
    listed.append(Rule("deny", tool="bash"))
    assert policy.decide("bash", "execute").decision == "ask" and policy.rules == (Rule("ask", tool="bash"),)


def test_a_rule_subclass_is_asked_at_every_decision() -> None:
    """A Rule subclass may match by anything: a policy holding one keeps no rulings."""
    answers = iter(["allow", "deny"])

    class Flipping(Rule):
        def matches(self, tool: str, kind: str) -> bool:
            return next(answers) == "deny"

    policy = Policy(rules=(Flipping("deny", tool="x"),))
    assert policy._rulings is None
    assert policy.decide("x", "read").decision == "ask"
    assert policy.decide("x", "read").decision == "deny"


def test_a_call_answered_this_turn_is_found_again_and_others_are_not(config_home: Path) -> None:
    from langacp_permissions.decisions import settled
    from langacp_permissions.session import call_key, state_of

    session = _session(config_home)
    call = ToolCallInfo("1", "bash", {"command": "ls"})
    assert decide(call, "execute", session).decision == "ask" and settled(call, "execute", session) is None
    state_of(session).answered[call_key(call)] = PermissionVerdict("deny", "no")
    assert decide(call, "execute", session) == PermissionVerdict("deny", "no")
    assert settled(call, "execute", session) == PermissionVerdict("deny", "no")
    other = ToolCallInfo("1", "bash", {"command": "ls -l"})  # the same id, other arguments: another call
    assert decide(other, "execute", session).decision == "ask" and settled(other, "execute", session) is None


def test_rules_are_validated() -> None:
    with pytest.raises(ValueError, match="allow, ask, deny"):
        Rule("yes", tool="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must name"):
        Rule("allow")


def test_user_file_loosens_and_unknown_tables_are_left_to_other_plugins(config_home: Path) -> None:
    _user(
        config_home,
        '[tools.kinds]\nmy_tool = "read"\n\n[permissions.kinds]\nexecute = "allow"\n\n'
        '[permissions.tools]\n"git_*" = "allow"\n"rm" = "deny"\n',
    )
    policy = load_policy(str(config_home / "project"))
    assert policy.decide("bash", "execute").decision == "allow"
    assert policy.decide("git_commit", "other").decision == "allow"
    assert policy.decide("rm", "execute").decision == "deny"


def test_a_project_file_can_only_tighten(config_home: Path) -> None:
    _project(config_home, '[permissions.kinds]\n"*" = "allow"\nread = "ask"\n[permissions.tools]\n"curl" = "deny"\n')
    layers = load_layers(str(config_home / "project"))
    policy = load_policy(str(config_home / "project"), layers=layers)
    assert policy.decide("bash", "execute").decision == "ask"  # its allow-everything is ignored
    assert policy.decide("read_file", "read").decision == "ask"  # its ask tightens
    assert policy.decide("curl", "fetch").decision == "deny"
    [notice] = layers.notices
    assert 'permissions.kinds.* = "allow"' in notice and "may only tighten" in notice


@pytest.mark.parametrize(("trusted", "loosened"), [("{home}", True), ("{home}/project", True), ("{home}/proj", False)])
def test_a_project_under_trusted_projects_may_loosen(config_home: Path, trusted: str, loosened: bool) -> None:
    _user(config_home, f'[permissions]\ntrusted_projects = ["{trusted.format(home=config_home)}"]\n')
    _project(config_home, '[permissions]\ntrusted_projects = ["/"]\n[permissions.kinds]\nexecute = "allow"\n')
    decision = load_policy(str(config_home / "project")).decide("bash", "execute").decision
    assert decision == ("allow" if loosened else "ask")


def test_a_project_cannot_trust_itself(config_home: Path) -> None:
    _project(config_home, '[permissions]\ntrusted_projects = ["/"]\n[permissions.kinds]\nexecute = "allow"\n')
    assert load_policy(str(config_home / "project")).decide("bash", "execute").decision == "ask"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[permissions\n", "the project's config file is ignored"),
        ('[permissions.kinds]\nread = "alow"\n', 'expected "allow", "ask" or "deny"'),
        ('[permissions]\nkind = {read = "ask"}\n', "unknown key(s) in [permissions]: kind"),
        ('permissions = "ask"\n', "[permissions] must be a table"),
        ('[permissions]\ntools = ["x"]\n', "[permissions.tools] must be a table"),
    ],
)
def test_a_broken_project_file_is_ignored_and_the_users_policy_stays(
    config_home: Path, caplog: pytest.LogCaptureFixture, text: str, message: str
) -> None:
    _user(config_home, '[permissions.kinds]\nexecute = "allow"\n[permissions.tools]\n"rm" = "deny"\n')
    _project(config_home, text)
    layers = load_layers(str(config_home / "project"))
    policy = load_policy(str(config_home / "project"), layers=layers)
    reported = caplog.text + "\n".join(layers.notices)
    assert str(config_home / "project" / ".langacp.toml") in reported and message in reported
    assert policy.decide("read_file", "read").decision == "allow"
    assert policy.decide("bash", "execute").decision == "allow"
    assert policy.decide("rm", "execute").decision == "deny"  # the user's deny is never turned into a question


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[permissions\n", "Expected ']'"),
        ('[permissions.kinds]\nread = "alow"\n', 'expected "allow", "ask" or "deny"'),
        ("[permissions]\ntrusted_projects = 3\n", "trusted_projects must be a list"),
    ],
)
def test_a_broken_user_file_is_reported_and_everything_asks(
    config_home: Path, caplog: pytest.LogCaptureFixture, text: str, message: str
) -> None:
    _user(config_home, text)
    policy = load_policy(str(config_home / "project"))
    assert message in caplog.text
    assert policy.decide("read_file", "read").decision == "ask"
    assert policy.decide("bash", "execute").decision == "ask"


def _pattern(prefix: list[str], options: list[str] | None, denied: tuple[str, ...] = ()) -> dict[str, object]:
    return {"tool": "t", "pattern": {"prefix": prefix, "options": options, "denied": list(denied)}}


@pytest.mark.parametrize(
    ("args", "kind", "scope"),
    [
        ({"path": "/x"}, "edit", {"tool": "t"}),
        ({"command": "git status --short"}, "execute", _pattern(["git", "status"], None, GIT_DENIED)),
        ({"cmd": ["git", "status"]}, "other", _pattern(["git", "status"], None, GIT_DENIED)),
        ({"command": "git", "args": ["log", "-1"]}, "execute", _pattern(["git", "log"], None, GIT_DENIED)),
        ({"command": "git commit -m 'fix it'"}, "execute", _pattern(["git", "commit"], ["-m"])),
        ({"command": "pytest -q tests/a.py"}, "execute", _pattern(["pytest"], ["-q"])),
        ({"command": "npm run test"}, "execute", _pattern(["npm", "run", "test"], [])),
        ({"command": "ls"}, "execute", _pattern(["ls"], [])),
        ({"command": "rm -i x"}, "execute", {"tool": "t", "exact": '"rm -i x"'}),
        ({"command": "sed -n 1p notes.txt"}, "execute", {"tool": "t", "exact": '"sed -n 1p notes.txt"'}),
        ({"command": "git -c core.pager=cat log"}, "execute", {"tool": "t", "exact": '"git -c core.pager=cat log"'}),
        ({"command": "git log --output=F"}, "execute", {"tool": "t", "exact": '"git log --output=F"'}),
        (
            {"command": "git grep --open-files-in=sh x"},
            "execute",
            {"tool": "t", "exact": '"git grep --open-files-in=sh x"'},
        ),
        ({"command": "git reflog expire --all"}, "execute", {"tool": "t", "exact": '"git reflog expire --all"'}),
        ({"command": "git config alias.x '!sh'"}, "execute", {"tool": "t", "exact": "\"git config alias.x '!sh'\""}),
        ({"command": "git st"}, "execute", {"tool": "t", "exact": '"git st"'}),  # an alias, maybe a shell
        ({"command": "ls *"}, "execute", {"tool": "t", "exact": '"ls *"'}),  # a glob may expand to an option
        ({"command": "A=1 make"}, "execute", {"tool": "t", "exact": '"A=1 make"'}),
        ({"command": "git status && rm -rf /"}, "execute", {"tool": "t", "exact": '"git status && rm -rf /"'}),
        ({"command": "echo $(whoami)"}, "execute", {"tool": "t", "exact": '"echo $(whoami)"'}),
        ({"command": "cat x > y"}, "execute", {"tool": "t", "exact": '"cat x > y"'}),
        ({"command": "bash -c 'ls'"}, "execute", {"tool": "t", "exact": "\"bash -c 'ls'\""}),
        ({"command": "/usr/bin/python3 -c 1"}, "execute", {"tool": "t", "exact": '"/usr/bin/python3 -c 1"'}),
        ({"command": "sudo rm x"}, "execute", {"tool": "t", "exact": '"sudo rm x"'}),
        ({"command": "uv run python -c 1"}, "execute", {"tool": "t", "exact": '"uv run python -c 1"'}),
        ({"command": "stdbuf -oL sh -c 'ls'"}, "execute", {"tool": "t", "exact": "\"stdbuf -oL sh -c 'ls'\""}),
        ({"command": "pip install requests"}, "execute", {"tool": "t", "exact": '"pip install requests"'}),
        ({"command": "git clone https://x/y"}, "execute", {"tool": "t", "exact": '"git clone https://x/y"'}),
        ({"command": "git worktree add ../wt"}, "execute", {"tool": "t", "exact": '"git worktree add ../wt"'}),
        # a branch cannot be told from a path, and these discard uncommitted work: exact only
        ({"command": "git checkout main"}, "execute", {"tool": "t", "exact": '"git checkout main"'}),
        ({"command": "git restore a.py"}, "execute", {"tool": "t", "exact": '"git restore a.py"'}),
        ({"command": "git clean -fd build"}, "execute", {"tool": "t", "exact": '"git clean -fd build"'}),
        ({"command": "git reset --hard HEAD"}, "execute", {"tool": "t", "exact": '"git reset --hard HEAD"'}),
        ({"command": "git reset --merge"}, "execute", {"tool": "t", "exact": '"git reset --merge"'}),
        ({"command": "git switch -f main"}, "execute", {"tool": "t", "exact": '"git switch -f main"'}),
        ({"command": "git switch -qf main"}, "execute", {"tool": "t", "exact": '"git switch -qf main"'}),
        ({"command": "git switch --disc main"}, "execute", {"tool": "t", "exact": '"git switch --disc main"'}),
        ({"command": "git rm --forc a.py"}, "execute", {"tool": "t", "exact": '"git rm --forc a.py"'}),
        ({"command": "git switch main"}, "execute", _pattern(["git", "switch"], [])),
        ({"command": "git reset -q a.py"}, "execute", _pattern(["git", "reset"], ["-q"])),
        ({"command": "git rm a.py"}, "execute", _pattern(["git", "rm"], [])),
        ({"command": "echo 'unbalanced"}, "execute", {"tool": "t", "exact": '"echo \'unbalanced"'}),
        ({"code": "print(1)"}, "execute", {"tool": "t", "exact": '{"code": "print(1)"}'}),
    ],
)
def test_the_scope_of_always(args: dict[str, object], kind: str, scope: dict[str, object]) -> None:
    assert scope_of(ToolCallInfo("id", "t", args), kind).as_json() == scope


@pytest.mark.parametrize(
    ("approved", "covered", "asked"),
    [
        (
            "git log --oneline -1",
            ["git log -5", "git log -p src", "git log --format=%H"],
            [
                "git log --output=FILE",
                "git log --output FILE",
                "git log -o F",
                "git log --ext-diff",
                "git log --textconv",
                "git log -pO",
                "git -c core.pager=cat log",
                "git -C /elsewhere log",
                "git log; touch x",
                "git log && touch x",
                "git log | sh",
                "git log $(touch x)",
                "git log `touch x`",
                "git log > f",
                "git show",
            ],
        ),
        ("git -c core.pager=cat log", ["git -c core.pager=cat log"], ["git -c 'alias.x=!touch F' x"]),
        ("sed -n 1p notes.txt", ["sed -n 1p notes.txt"], ["sed -n 'w F' notes.txt", "sed -i s/a/b/ notes.txt"]),
        ("rm -i x", ["rm -i x"], ["rm -i y", "rm -rf /", "rm -i x; rm -rf /"]),
        ("pytest -q tests/a.py", ["pytest -q tests/b.py"], ["pytest -q --basetemp=/x", "pytest", "pytest -q x && y"]),
        ("sort -u notes.txt", ["sort -u other.txt"], ["sort -u -o notes.txt notes.txt", "sort -u --output=x y"]),
        ("npm run test", ["npm run test"], ["npm run deploy", "npm run test -- --watch", "npm exec x"]),
        (  # git takes unambiguous abbreviations of long options: --open-files-in=CMD runs CMD
            "git grep one",
            ["git grep -n two", "git grep -e one -- src"],
            ["git grep --open-files-in=touch one", "git grep --open-files-in-pager one", "git grep --o=sh one"],
        ),
        ("git log -1", ["git log -1 --oneline"], ["git log --outp=F", "git log --ext-dif", "git log --textc"]),
        ("git reflog -1", ["git reflog show -5"], ["git reflog expire --expire=now --all", "git reflog delete x"]),
        (
            "git push origin main",
            ["git push origin main", "git push origin dev"],
            ["git push origin +main", "git push origin :dev"],
        ),
        ("git stash", ["git stash"], ["git stash drop", "git stash clear"]),
        (  # a wrapper runs the interpreter named in its operands: only the exact command
            "uv run pytest -q",
            ["uv run pytest -q tests/b.py"],
            ["uv run pytest -q python", "uv run pytest -q -- sh"],
        ),
        (
            "git remote add up https://x/y",
            ["git remote add fork https://x/z"],
            ["git remote set-url origin https://evil"],
        ),
        (  # `git checkout .` and `git restore .` discard every uncommitted change
            "git checkout main",
            ["git checkout main"],
            [
                "git checkout .",
                "git checkout -- a.py",
                "git checkout HEAD a.py",
                "git checkout -f main",
                "git checkout dev",
            ],
        ),
        ("git restore a.py", ["git restore a.py"], ["git restore .", "git restore b.py", "git restore -W ."]),
        ("git clean -fd build", ["git clean -fd build"], ["git clean -fd .", "git clean -fd src"]),
        (
            "git switch main",
            ["git switch dev"],
            ["git switch -f dev", "git switch --discard-changes dev", "git switch --force dev", "git switch -qf dev"],
        ),
        ("git switch -f main", ["git switch -f main"], ["git switch -f dev", "git switch --discard-changes main"]),
        ("git reset --hard HEAD", ["git reset --hard HEAD"], ["git reset --hard", "git reset --hard origin/main"]),
        ("git reset -q a.py", ["git reset -q b.py"], ["git reset -q --hard", "git reset -q --har", "git reset --hard"]),
        ("git rm a.py", ["git rm b.py"], ["git rm -f b.py", "git rm --for b.py"]),
        ("git rm -f a.py", ["git rm -f a.py"], ["git rm -f b.py"]),
    ],
)
def test_what_an_always_allowed_command_covers(approved: str, covered: list[str], asked: list[str]) -> None:
    remembered = scope_of(ToolCallInfo("1", "sh", {"command": approved}), "execute")
    for other in covered:
        assert remembered.covers(ToolCallInfo("2", "sh", {"command": other})), other
    for other in asked:
        assert not remembered.covers(ToolCallInfo("2", "sh", {"command": other})), other
    assert not remembered.covers(ToolCallInfo("2", "other_shell", {"command": approved}))


@pytest.mark.parametrize(
    ("pattern", "asked"),
    [
        ({"prefix": ["git", "checkout"], "options": []}, ["git checkout .", "git checkout main"]),
        ({"prefix": ["git", "restore"], "options": []}, ["git restore ."]),
        ({"prefix": ["git", "clean"], "options": ["-fd"]}, ["git clean -fd ."]),
        ({"prefix": ["git"], "options": []}, ["git checkout .", "git restore ."]),
        ({"prefix": ["git", "switch"], "options": ["-f"]}, ["git switch -f dev"]),
        ({"prefix": ["git", "reset"], "options": ["--hard"]}, ["git reset --hard origin/main"]),
        ({"prefix": ["git", "rm"], "options": ["-f"]}, ["git rm -f a.py"]),
        ({"prefix": ["git", "clone"], "options": []}, ["git clone https://evil/x"]),
    ],
)
def test_a_stored_pattern_never_covers_a_discarding_git_command(pattern: dict[str, object], asked: list[str]) -> None:
    """Patterns remembered before a command became exact-only (or edited in the store) do not cover it."""
    scope = Scope.from_json({"tool": "sh", "pattern": {**pattern, "denied": []}})
    assert scope is not None
    for command in asked:
        assert not scope.covers(ToolCallInfo("1", "sh", {"command": command})), command
    kept = Scope.from_json({"tool": "sh", "pattern": {"prefix": ["git", "switch"], "options": [], "denied": []}})
    assert kept is not None and kept.covers(ToolCallInfo("1", "sh", {"command": "git switch dev"}))


@pytest.mark.parametrize("prefix", [["git", "checkout"], ["git", "restore"], ["sh"], ["git"], ["git", "log", "x"]])
def test_a_stored_any_options_pattern_is_only_trusted_for_a_read_only_git_subcommand(prefix: list[str]) -> None:
    """ "Any options but git's denied ones" is only ever made for ``git log`` & co; ``sh -c …`` must not match."""
    stored = {"tool": "sh", "pattern": {"prefix": prefix, "options": None, "denied": list(GIT_DENIED)}}
    assert Scope.from_json(stored) is None
    log = {"tool": "sh", "pattern": {"prefix": ["git", "log"], "options": None, "denied": list(GIT_DENIED)}}
    assert Scope.from_json(log) is not None


def _session(tmp_path: Path, record: SessionRecord | None = None) -> SessionContext:
    """A session as the core opens it from ``record``: its data is the record's."""
    record = record or SessionRecord(session_id="s", cwd=str(tmp_path))
    return SessionContext(session_id="s", cwd=str(tmp_path), stored=record.data)


def test_remembered_answers_live_in_the_record_as_json(config_home: Path) -> None:
    session = _session(config_home)
    scope = scope_of(ToolCallInfo("1", "sh", {"command": "make test"}), "execute")
    remember(session, scope, "allow")
    remember(session, scope_of(ToolCallInfo("2", "write", {}), "edit"), "deny")
    remember(session, scope, "deny")  # a later answer replaces the earlier one
    record = SessionRecord(session_id="s", cwd=str(config_home), data=session.saved_data())
    stored = json.loads(json.dumps(record.as_dict()))
    restored = _session(config_home, SessionRecord(**stored))  # as a persistent store would give it back
    assert recall(restored, ToolCallInfo("3", "sh", {"command": "make test"})) == (scope, "deny")
    assert len(stored["data"]["permissions"]["remembered"]) == 2


def test_stored_garbage_is_ignored_never_trusted(config_home: Path) -> None:
    record = SessionRecord(session_id="s", cwd=str(config_home))
    record.data["permissions"] = {
        "remembered": [
            "allow everything",
            {"tool": "sh", "decision": "allow", "prefix": "rm"},
            {"tool": "sh", "decision": "allow", "prefix": ["rm"]},  # the old two-word format: not trusted
            {"tool": "sh", "decision": "allow", "pattern": {"prefix": ["rm"], "options": None, "denied": []}},
            {"tool": "sh", "decision": "sure"},
            {"tool": 3, "decision": "allow"},
            {"tool": "write", "decision": "allow"},
        ]
    }
    session = _session(config_home, record)
    assert decide(ToolCallInfo("1", "sh", {"command": "rm x"}), "execute", session).decision == "ask"
    assert decide(ToolCallInfo("1", "write", {}), "edit", session).decision == "allow"
    record.data["permissions"] = "garbage"
    session = _session(config_home, record)
    assert decide(ToolCallInfo("1", "write", {}), "edit", session).decision == "ask"


def test_a_policy_set_from_code_replaces_the_configured_one(config_home: Path) -> None:
    _project(config_home, '[permissions.tools]\n"curl" = "deny"\n')
    session = _session(config_home / "project")
    assert policy_for(session).decide("bash", "execute").decision == "ask"
    set_policy(session, configured_policy(session).with_rules(Rule("allow", kind="*"), Rule("deny", kind="edit")))
    assert decide(ToolCallInfo("1", "bash", {"command": "ls"}), "execute", session).decision == "allow"
    assert decide(ToolCallInfo("1", "curl", {}), "fetch", session).decision == "deny"  # the project's deny stays
    assert decide(ToolCallInfo("1", "write", {}), "edit", session).decision == "deny"
    set_policy(session, None)
    assert decide(ToolCallInfo("1", "bash", {"command": "ls"}), "execute", session).decision == "ask"


def test_a_remembered_allow_never_overrides_a_policy_deny(config_home: Path) -> None:
    session = _session(config_home)
    call = ToolCallInfo("1", "write", {})
    remember(session, scope_of(call, "edit"), "allow")
    assert decide(call, "edit", session).decision == "allow"
    set_policy(session, Policy().with_rules(Rule("deny", tool="write")))
    verdict = decide(call, "edit", session)
    assert verdict.decision == "deny" and "policy denies" in (verdict.reason or "")


async def test_sessions_of_one_configuration_share_one_policy(
    config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The core shares the configuration layers between the sessions of a directory; the policy built from them too."""
    import os
    import time

    from langacp.plugins import Plugins
    from langacp_permissions import session as state

    built: list[str] = []
    real = state.load_policy

    def counted(cwd: str, *args: object, **kwargs: object) -> Policy:
        built.append(cwd)
        return real(cwd, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(state, "load_policy", counted)
    project = config_home / "project"

    def write(text: str) -> None:
        (project / ".langacp.toml").write_text(text)
        old = time.time_ns() - 30_000_000_000  # older than the window in which the core reads a file again anyway
        os.utime(project / ".langacp.toml", ns=(old, old))

    async def policy() -> Policy:
        session = SessionContext(f"s{len(built)}", str(project), plugins=plugins)
        await plugins.session_created(session)  # the core reads (or shares) the session's layers
        return configured_policy(session)

    plugins = Plugins()
    write('[permissions.kinds]\nedit = "deny"\n')
    policies = [await policy() for _ in range(3)]
    assert built == [str(project)] and policies[0] is policies[1] is policies[2]
    assert policies[0].decide("write_file", "edit").decision == "deny"
    write('[permissions.kinds]\nedit = "ask"\n')  # a changed file: a policy of its own
    assert (await policy()).decide("write_file", "edit").decision == "ask"
    assert len(built) == 2
