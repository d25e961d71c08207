"""The docs follow the hook contract, and every hook has a test.

* every hook in ``langacp.hookspecs`` has a ``### <name>`` section in ``docs/hooks.md``;
* that section shows the hook's real signature, on one line;
* the table and that section say what the hook's record (``hookspecs.CONTRACT``) declares, and
  ``docs/plugins.md`` names the hooks whose errors answer a request and those without a time limit;
* ``docs/hooks.md`` documents no hook that does not exist;
* every hook is named in at least one test file (``test_*.py`` / ``*_test.py``) under
  ``core/tests/`` or ``tests/``, other than this one.
"""

from __future__ import annotations

import inspect
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from langacp import hookspecs

ROOT = Path(__file__).resolve().parents[2]
HOOKS_DOC = ROOT / "docs" / "hooks.md"
PLUGINS_DOC = ROOT / "docs" / "plugins.md"
TEST_DIRS = (ROOT / "core" / "tests", ROOT / "tests")
THIS_FILE = Path(__file__).resolve()

HOOKS = sorted(hookspecs.HOOK_NAMES)
_HOOK_HEADING = re.compile(r"^###[ \t]+(langacp_\S+)[ \t]*$", re.MULTILINE)
_ANY_HEADING = re.compile(r"^#{1,6}[ \t]", re.MULTILINE)


@cache
def _doc() -> str:
    return HOOKS_DOC.read_text(encoding="utf-8")


def _section(name: str) -> str | None:
    """The text of ``### name`` up to the next heading, or ``None`` if there is no such heading."""
    doc = _doc()
    match = re.search(rf"^###[ \t]+{re.escape(name)}[ \t]*$", doc, re.MULTILINE)
    if match is None:
        return None
    following = _ANY_HEADING.search(doc, match.end())
    return doc[match.end() : following.start() if following else len(doc)]


def _annotation(annotation: object) -> str:
    # ``from __future__ import annotations`` in hookspecs.py: annotations are the source text.
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def expected_signature(name: str) -> str:
    """``def name(p: T, ...) -> R``, built from the hookspec function."""
    signature = inspect.signature(getattr(hookspecs, name))
    params = ", ".join(f"{p.name}: {_annotation(p.annotation)}" for p in signature.parameters.values())
    return f"def {name}({params}) -> {_annotation(signature.return_annotation)}"


@cache
def _test_sources() -> dict[Path, str]:
    sources: dict[Path, str] = {}
    for folder in TEST_DIRS:
        for path in sorted({*folder.rglob("test_*.py"), *folder.rglob("*_test.py")}):
            if path.resolve() != THIS_FILE:
                sources[path] = path.read_text(encoding="utf-8")
    return sources


def test_hook_names_are_found() -> None:
    assert HOOKS, "langacp.hookspecs.HOOK_NAMES is empty"
    assert all(callable(getattr(hookspecs, name)) for name in HOOKS)


@pytest.mark.parametrize("name", HOOKS)
def test_hook_has_a_section(name: str) -> None:
    assert name in _HOOK_HEADING.findall(_doc()), f"docs/hooks.md has no '### {name}' heading"


@pytest.mark.parametrize("name", HOOKS)
def test_documented_signature_matches(name: str) -> None:
    expected = expected_signature(name)
    section = _section(name)
    assert section is not None, f"docs/hooks.md has no '### {name}' heading"
    lines = [line.strip() for line in section.splitlines()]
    assert expected in lines, f"the '### {name}' section of docs/hooks.md lacks the line:\n{expected}"


def test_no_unknown_hook_is_documented() -> None:
    headings = _HOOK_HEADING.findall(_doc())
    unknown = sorted(set(headings) - set(HOOKS))
    assert not unknown, f"docs/hooks.md documents hooks that do not exist: {unknown}"
    duplicates = sorted({name for name in headings if headings.count(name) > 1})
    assert not duplicates, f"docs/hooks.md documents these hooks more than once: {duplicates}"


@pytest.mark.parametrize("name", HOOKS)
def test_hook_has_a_test(name: str) -> None:
    pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
    users = [path for path, text in _test_sources().items() if pattern.search(text)]
    assert users, f"no test file under core/tests/ or tests/ names {name}"


def _yes(text: str) -> bool:
    return not text.strip().startswith("no")


def test_the_table_follows_each_hooks_record() -> None:
    """The firstresult, async-capable and time limit columns say what ``hookspecs.CONTRACT`` declares."""
    rows = re.findall(r"^\| `(langacp_\w+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|", _doc(), re.MULTILINE)
    assert [row[0] for row in rows] == list(hookspecs.CONTRACT)
    for name, firstresult, awaited, limit in rows:
        hook = hookspecs.CONTRACT[name]
        assert (_yes(firstresult), _yes(awaited)) == (hook.firstresult, hook.awaited), name
        expected = f"`{hook.limit}`" if hook.limit else ("none" if hook.awaited else "—")
        assert limit.strip() == expected, name


@pytest.mark.parametrize("name", HOOKS)
def test_the_section_follows_the_hooks_record(name: str) -> None:
    section = _section(name) or ""
    hook = hookspecs.CONTRACT[name]
    firstresult = re.search(r"^- \*\*firstresult:\*\* (.*)$", section, re.MULTILINE)
    awaited = re.search(r"^- \*\*Async-capable:\*\* (.*)$", section, re.MULTILINE)
    assert firstresult and awaited, f"the '### {name}' section lacks its firstresult or Async-capable line"
    assert (_yes(firstresult[1]), _yes(awaited[1])) == (hook.firstresult, hook.awaited)


@pytest.mark.parametrize(
    ("lead", "declared"),
    [
        ("raised by a hook that answers a request", lambda hook: hook.answering),
        ("The hooks that wait for a person", lambda hook: hook.awaited and hook.limit is None),
    ],
)
def test_the_plugin_guide_names_the_hooks_the_records_declare(lead: str, declared: Any) -> None:
    text = " ".join(PLUGINS_DOC.read_text(encoding="utf-8").split())
    start = text.index(lead)
    named = set(re.findall(r"`(langacp_\w+)`", text[start : text.index(".", start)]))
    assert named == {name for name, hook in hookspecs.CONTRACT.items() if declared(hook)}
