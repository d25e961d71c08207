"""registry/langacp/: the ACP registry entry, checked as the registry's build checks it.

The schema is the registry's own, read from the team's shared checkout (``../shared/registry/`` beside
this repository, or the file ``LANGACP_REGISTRY_SCHEMA`` names; it is not copied here); the icon rules are
the registry's build rules (an SVG, square 16×16, every fill and stroke ``currentColor`` or
``none``, no comments). The auth check, which spawns the entry's command, is in
tests/dist/test_dist_install.py (it needs the built distributions).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

import langacp

REPO = Path(__file__).resolve().parent.parent
ENTRY_DIR = REPO / "registry" / "langacp"


def _registry_schema() -> dict[str, object]:
    """The ACP registry's own schema: never a copy in this repository.

    Found at ``$LANGACP_REGISTRY_SCHEMA`` or ``shared/registry/agent.schema.json`` in the nearest directory
    above the clone that has one (``../shared`` beside it).
    Missing, the schema tests are skipped saying where they looked, unless ``LANGACP_REQUIRE_REGISTRY_SCHEMA``
    is set (then missing fails).
    """
    named = os.environ.get("LANGACP_REGISTRY_SCHEMA")
    found = (d / "shared" / "registry" / "agent.schema.json" for d in REPO.parents)
    path = Path(named) if named else next((p for p in found if p.is_file()), REPO.parent / "shared" / "registry")
    if not path.is_file():
        if os.environ.get("LANGACP_REQUIRE_REGISTRY_SCHEMA"):
            pytest.fail(f"the ACP registry schema is not at {path} (set LANGACP_REGISTRY_SCHEMA)")
        pytest.skip(f"the ACP registry schema is not at {path} (set LANGACP_REGISTRY_SCHEMA)")
    schema: dict[str, object] = json.loads(path.read_text())
    return schema


@pytest.fixture(scope="module")
def entry() -> dict[str, object]:
    data: dict[str, object] = json.loads((ENTRY_DIR / "agent.json").read_text())
    return data


def test_registry_entry_validates_against_the_registry_schema(entry: dict[str, object]) -> None:
    schema = _registry_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.validate(entry, schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def test_registry_entry_schema_rejects_a_broken_entry(entry: dict[str, object]) -> None:
    """The validation above can fail: the same schema refuses an entry with a bad id and an unknown field."""
    schema = _registry_schema()
    for broken in ({**entry, "id": "LangACP"}, {**entry, "distribution": {"pip": {"package": "langacp"}}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


def test_registry_entry_names_the_core_package_at_this_version(entry: dict[str, object]) -> None:
    assert entry["id"] == ENTRY_DIR.name
    assert entry["version"] == langacp.__version__
    distribution = entry["distribution"]
    assert isinstance(distribution, dict)
    uvx = distribution["uvx"]
    match = re.fullmatch(r"(?P<name>[a-z0-9-]+)(?:\[(?P<extras>[a-z0-9,-]+)\])?==(?P<version>.+)", uvx["package"])
    assert match is not None, uvx["package"]
    assert match["name"] == "langacp" and match["version"] == langacp.__version__
    assert "all" in (match["extras"] or "").split(",")
    assert "cmd" not in uvx  # the package's own command, `langacp`
    assert uvx["args"][0] == "serve"


def _paint(element: ET.Element) -> list[str]:
    values = [element.get("fill"), element.get("stroke")]
    for prop in (element.get("style") or "").split(";"):
        name, _, value = prop.partition(":")
        if name.strip().lower() in ("fill", "stroke"):
            values.append(value)
    return [v.strip().lower() for v in values if v is not None]


def test_registry_entry_icon_follows_the_registry_rules() -> None:
    text = (ENTRY_DIR / "icon.svg").read_text()
    assert "<!--" not in text
    root = ET.fromstring(text)
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    assert (root.get("width"), root.get("height")) == ("16", "16")
    assert root.get("viewBox") == "0 0 16 16"
    paints = [value for element in root.iter() for value in _paint(element)]
    assert "currentcolor" in paints
    assert set(paints) <= {"currentcolor", "none", "inherit"}, paints
    assert not any(element.tag.rsplit("}", 1)[-1] == "style" for element in root.iter())
