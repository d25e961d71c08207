"""The public plugin API stays written down, and the import-linter contracts cover the whole tree.

* every public name of ``langacp.api`` is in its ``__all__`` and documented in ``docs/plugins.md``
  (section "The plugin API"), and the page documents no name the module does not have;
* ``pyproject.toml``'s import-linter contracts list every plugin package and every internal core
  module, so a new one cannot slip past ``lint-imports``.
"""

from __future__ import annotations

import re
import tomllib
import types
from pathlib import Path

import langacp.api

ROOT = Path(__file__).resolve().parents[2]
PLUGINS_DOC = ROOT / "docs" / "plugins.md"
PUBLIC_MODULES = {"api", "testing", "client"}
"""Modules a plugin may import: the plugin API, test helpers, the ACP client side."""


def _api_section() -> str:
    text = PLUGINS_DOC.read_text(encoding="utf-8")
    start = text.index("## The plugin API")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_every_public_name_is_exported() -> None:
    public = {n for n, v in vars(langacp.api).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    public -= {"annotations"}  # from __future__
    assert public | {"__version__"} == set(langacp.api.__all__)


def test_every_public_name_is_documented() -> None:
    section = _api_section()
    missing = [name for name in langacp.api.__all__ if f"`{name}" not in section]
    assert missing == [], f"document these langacp.api names in docs/plugins.md: {missing}"


def test_the_documentation_lists_no_name_the_api_lacks() -> None:
    listed = set(re.findall(r"^\| `([A-Za-z_][A-Za-z0-9_]*)", _api_section(), re.MULTILINE))
    assert listed - set(langacp.api.__all__) == set()


def _contracts() -> tuple[list[str], list[dict[str, object]]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return config["root_packages"], config["contracts"]


def _plugin_packages() -> set[str]:
    found = set()
    for src in [*(ROOT / "plugins").glob("*/src"), *(ROOT / "examples").glob("**/src")]:
        found |= {p.name for p in src.iterdir() if (p / "__init__.py").exists()}
    return found


def test_the_contracts_name_every_plugin_package() -> None:
    roots, contracts = _contracts()
    plugins = _plugin_packages()
    assert set(roots) == {"langacp", *plugins}
    by_name = {str(c["name"]): c for c in contracts}
    assert set(by_name["The core names no plugin"]["forbidden_modules"]) == plugins  # type: ignore[arg-type]
    assert set(by_name["Plugins never import one another"]["modules"]) == plugins  # type: ignore[arg-type]


def test_the_contracts_forbid_every_internal_module() -> None:
    _roots, contracts = _contracts()
    [contract] = [c for c in contracts if str(c["name"]).startswith("Plugins use only the public API")]
    package = ROOT / "core" / "src" / "langacp"
    internal = {
        f"langacp.{p.stem}"
        for p in package.iterdir()
        if (p.suffix == ".py" and not p.name.startswith("__")) or (p / "__init__.py").exists()
    }
    assert set(contract["forbidden_modules"]) == internal - {f"langacp.{m}" for m in PUBLIC_MODULES}  # type: ignore[arg-type]


def test_the_layers_name_every_core_module_once() -> None:
    """The core's ``layers`` contract is exhaustive (lint-imports fails on a module left out); here too."""
    _roots, contracts = _contracts()
    [contract] = [c for c in contracts if c["type"] == "layers" and c.get("containers") == ["langacp"]]
    assert contract["exhaustive"] is True
    named = [m.strip() for layer in contract["layers"] for m in str(layer).split("|")]  # type: ignore[attr-defined]
    package = ROOT / "core" / "src" / "langacp"
    children = {p.stem for p in package.iterdir() if p.suffix == ".py" and p.name != "__init__.py"}
    children |= {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    assert sorted(named) == sorted(children)
    assert named.index("types") > named.index("hookspecs") > named.index("plugins") > named.index("bridge")
