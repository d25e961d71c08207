"""registry/langacp/: the ACP registry entry, checked as the registry's build checks it.

The schema is the registry's own (copied to registry/agent.schema.json); the icon rules are
the registry's build rules (an SVG, square 16×16, every fill and stroke ``currentColor`` or
``none``, no comments). The auth check, which spawns the entry's command, is in
tests/dist/test_dist_install.py (it needs the built distributions).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

import langacp

REGISTRY = Path(__file__).resolve().parent.parent / "registry"
ENTRY_DIR = REGISTRY / "langacp"


@pytest.fixture(scope="module")
def entry() -> dict[str, object]:
    data: dict[str, object] = json.loads((ENTRY_DIR / "agent.json").read_text())
    return data


def test_registry_entry_validates_against_the_registry_schema(entry: dict[str, object]) -> None:
    schema = json.loads((REGISTRY / "agent.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.validate(entry, schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def test_registry_entry_schema_rejects_a_broken_entry(entry: dict[str, object]) -> None:
    """The validation above can fail: the same schema refuses an entry with a bad id and an unknown field."""
    schema = json.loads((REGISTRY / "agent.schema.json").read_text())
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
