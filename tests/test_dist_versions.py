"""One version for every distribution: the core's ``_version.py``, repeated (by scripts/set_version.py) where needed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import langacp

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_DIRS = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))


def _project(path: Path) -> dict[str, object]:
    data: dict[str, object] = tomllib.loads((path / "pyproject.toml").read_text())["project"]
    return data


def test_dist_versions_the_core_reads_its_version_from_one_file() -> None:
    core = _project(ROOT / "core")
    assert "version" not in core and core["dynamic"] == ["version"]
    declared = re.search(r'__version__ = "(.+)"', (ROOT / "core/src/langacp/_version.py").read_text())
    assert declared is not None and declared.group(1) == langacp.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", langacp.__version__)


def test_dist_versions_cli_prints_it() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == f"langacp {langacp.__version__}"


def test_dist_versions_every_plugin_is_released_with_the_core() -> None:
    version = langacp.__version__
    major, minor, _ = version.split(".")
    upper = f"{major}.{int(minor) + 1}" if major == "0" else f"{int(major) + 1}"
    assert len(PLUGIN_DIRS) >= 10
    for plugin in PLUGIN_DIRS:
        project = _project(plugin)
        assert project["version"] == version, plugin.name
        deps = project["dependencies"]
        assert isinstance(deps, list)
        assert f"langacp>={version},<{upper}" in deps, (plugin.name, deps)
        assert project["readme"] == "README.md" and (plugin / "README.md").is_file(), plugin.name


def test_dist_versions_all_extra_installs_every_plugin_at_this_version() -> None:
    extras = _project(ROOT / "core")["optional-dependencies"]
    assert isinstance(extras, dict)
    pinned = {req.split("==")[0]: req.split("==")[1] for req in extras["all"]}
    names = {str(_project(plugin)["name"]) for plugin in PLUGIN_DIRS}
    assert set(pinned) == names
    assert set(pinned.values()) == {langacp.__version__}


def test_dist_versions_registry_entry_names_this_release() -> None:
    entry = json.loads((ROOT / "registry/langacp/agent.json").read_text())
    assert entry["version"] == langacp.__version__
    package = entry["distribution"]["uvx"]["package"]
    name, _, pin = package.partition("==")
    assert re.sub(r"\[.*\]$", "", name) == "langacp" and pin == langacp.__version__


def test_dist_versions_changelog_has_this_release() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[?{re.escape(langacp.__version__)}\]?", changelog, re.M), "CHANGELOG.md has no section"


def test_dist_versions_set_version_rewrites_every_place(tmp_path: Path) -> None:
    """scripts/set_version.py on a copy of the tree: every place moves to the new version."""
    import shutil

    copy = tmp_path / "tree"
    for part in ("core/pyproject.toml", "core/src/langacp/_version.py", "registry/langacp/agent.json", "scripts"):
        src = ROOT / part
        dest = copy / part
        dest.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest)
    for plugin in PLUGIN_DIRS:
        (copy / "plugins" / plugin.name).mkdir(parents=True)
        shutil.copy(plugin / "pyproject.toml", copy / "plugins" / plugin.name / "pyproject.toml")
    subprocess.run([sys.executable, str(copy / "scripts/set_version.py"), "0.7.3"], check=True, capture_output=True)
    assert '__version__ = "0.7.3"' in (copy / "core/src/langacp/_version.py").read_text()
    for plugin in PLUGIN_DIRS:
        project = _project(copy / "plugins" / plugin.name)
        assert project["version"] == "0.7.3"
        assert "langacp>=0.7.3,<0.8" in project["dependencies"]  # type: ignore[operator]
    extras = _project(copy / "core")["optional-dependencies"]
    assert all(req.endswith("==0.7.3") for req in extras["all"])  # type: ignore[index]
    entry = json.loads((copy / "registry/langacp/agent.json").read_text())
    assert entry["version"] == "0.7.3" and entry["distribution"]["uvx"]["package"].endswith("==0.7.3")
