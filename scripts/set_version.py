"""Set the version of every langacp distribution at once: ``python scripts/set_version.py 0.2.0``.

The version is declared once, in ``core/src/langacp/_version.py``; this script rewrites every
place that must repeat it (each plugin's version and its ``langacp`` requirement, the core's
``all`` extra, the ACP registry entry). ``tests/test_dist_versions.py`` fails when any differs.
With no argument it rewrites them to the version already declared (after a hand edit).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION_FILE = ROOT / "core" / "src" / "langacp" / "_version.py"
REGISTRY_ENTRY = ROOT / "registry" / "langacp" / "agent.json"
_VERSION = re.compile(r'^__version__ = "([^"]+)"$', re.M)
_SEMVER = re.compile(r"^\d+\.\d+\.\d+$")


def declared_version() -> str:
    """The version in ``core/src/langacp/_version.py``."""
    match = _VERSION.search(VERSION_FILE.read_text())
    if match is None:
        raise SystemExit(f"no __version__ in {VERSION_FILE}")
    return match.group(1)


def plugin_projects() -> list[Path]:
    """``pyproject.toml`` of every plugin released with the core."""
    return sorted(p for p in (ROOT / "plugins").glob("*/pyproject.toml"))


def compatible(version: str) -> str:
    """The ``langacp`` requirement of a plugin released at ``version``: same minor series."""
    major, minor, _patch = version.split(".")
    return f"langacp>={version},<{major}.{int(minor) + 1}" if major == "0" else f"langacp>={version},<{int(major) + 1}"


def _rewrite_plugin(path: Path, version: str) -> None:
    text = path.read_text()
    text = re.sub(r'(?m)^version = "[^"]*"$', f'version = "{version}"', text, count=1)
    text = re.sub(r'"langacp(?:[<>=!~][^"]*)?"', f'"{compatible(version)}"', text, count=1)
    path.write_text(text)


def _rewrite_core(version: str) -> None:
    """The ``all`` extra: every plugin directory's distribution, pinned at ``version``."""
    path = ROOT / "core" / "pyproject.toml"
    names = [tomllib.loads(p.read_text())["project"]["name"] for p in plugin_projects()]
    block = "all = [\n" + "".join(f'    "{name}=={version}",\n' for name in names) + "]\n"
    text, count = re.subn(r"(?ms)^all = \[\n.*?^\]\n", lambda _m: block, path.read_text(), count=1)
    if count != 1:
        raise SystemExit(f"no 'all = [' extra in {path}")
    path.write_text(text)


def _rewrite_registry(version: str) -> None:
    entry = json.loads(REGISTRY_ENTRY.read_text())
    entry["version"] = version
    uvx = entry["distribution"]["uvx"]
    uvx["package"] = re.sub(r"==.*$", "", uvx["package"]) + f"=={version}"
    REGISTRY_ENTRY.write_text(json.dumps(entry, indent=2) + "\n")


def set_version(version: str) -> None:
    if not _SEMVER.match(version):
        raise SystemExit(f"not a version X.Y.Z: {version!r}")
    VERSION_FILE.write_text(_VERSION.sub(f'__version__ = "{version}"', VERSION_FILE.read_text()))
    for path in plugin_projects():
        _rewrite_plugin(path, version)
    _rewrite_core(version)
    _rewrite_registry(version)


if __name__ == "__main__":
    set_version(sys.argv[1] if len(sys.argv) > 1 else declared_version())
    print(f"langacp {declared_version()}: core, {len(plugin_projects())} plugins and the registry entry")
