"""No private name of a dependency is read outside ``langacp.compat`` (the lint check of issue 31).

Over the sources of the core, every plugin and the examples:

- no import of a dependency's private module or name (``from acp._transport import ...``,
  ``from langchain_core.tracers._streaming import _X``);
- no ``obj._name`` where ``_name`` is defined nowhere in langacp's own sources (so it is a
  dependency's): ``self._x`` / ``cls._x`` and langacp's own private members are left to the
  ``layers`` rules;
- no LangGraph internal key spelt out (``__pregel_*``, ``__interrupt__``) except the remote
  plugin's, which reads the LangGraph Server's JSON stream (its wire format, not a Python name).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COMPAT = REPO / "core" / "src" / "langacp" / "compat"
WIRE_KEYS = {REPO / "plugins" / "remote" / "src"}
"""Sources that read LangGraph Server's JSON (``__interrupt__`` is a key of its stream there)."""


def sources() -> list[Path]:
    roots = [REPO / "core" / "src", *(REPO / "plugins").glob("*/src"), REPO / "examples"]
    found = []
    for root in roots:
        found.extend(p for p in root.rglob("*.py") if ".venv" not in p.parts and "node_modules" not in p.parts)
    return sorted(found)


PUBLIC = {"_exit", "_asdict", "_replace", "_fields", "_make"}
"""Public names that start with an underscore (``os._exit``, a namedtuple's methods)."""


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in PUBLIC


def _own(module: str) -> bool:
    top = module.split(".")[0]
    return top == "langacp" or top.startswith("langacp_")


def own_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Every private name langacp's sources define (functions, classes, attributes, fields, module names)."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[0])
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                names.add(node.value)  # __slots__ entries, getattr(obj, "_x") of our own
    return {n for n in names if _private(n)}


def findings(path: Path, tree: ast.Module, own: set[str]) -> list[str]:
    found = []
    where = path.relative_to(REPO)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and not _own(node.module):
            if any(_private(part) for part in node.module.split(".")) or any(_private(a.name) for a in node.names):
                names = ", ".join(a.name for a in node.names)
                found.append(f"{where}:{node.lineno}: from {node.module} import {names}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not _own(alias.name) and any(_private(part) for part in alias.name.split(".")):
                    found.append(f"{where}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{where}:{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if (node.value.startswith("__pregel") or node.value == "__interrupt__") and not any(
                root in path.parents for root in WIRE_KEYS
            ):
                found.append(f"{where}:{node.lineno}: {node.value!r}")
    return found


def test_no_private_dependency_name_outside_compat() -> None:
    trees = {path: ast.parse(path.read_text(), str(path)) for path in sources()}
    own = own_names({p: t for p, t in trees.items() if COMPAT not in p.parents})
    problems = [f for path, tree in trees.items() if COMPAT not in path.parents for f in findings(path, tree, own)]
    assert not problems, "private dependency names outside langacp.compat:\n" + "\n".join(problems)


def test_no_private_names_check_catches_each_kind() -> None:
    tree = ast.parse(
        "from acp._transport import pair\n"
        "import langchain_core.tracers._streaming\n"
        "from langgraph.types import _Hidden\n"
        "conn._conn.send()\n"
        "key = '__pregel_push'\n"
        "self._mine = 1\n"
        "other._mine\n"
    )
    found = findings(REPO / "core" / "src" / "x.py", tree, {"_mine"})
    assert len(found) == 5, found
