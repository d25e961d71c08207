"""``langacp check`` and ``langacp plugins --json`` report the ACP protocol version and this build's
optional features; the registry entry and docs/editors.md say the same."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from acp import PROTOCOL_VERSION

from langacp.protocol import OFFERED

REPO = Path(__file__).resolve().parent.parent
WORDS = {
    "notice": "notices",
    "compaction": "compaction updates",
    "messageId": "message ids",
    "toolCallName": "tool names",
    "traceContext": "trace context",
    "booleanConfigOptions": "on/off options",
    "systemPrompt": "system prompts",
    "sessionTitleStatus": "session titles and status",
    "planOperations": "plans by id",
    "subagents": "subagents",
}
"""How the registry entry's description names each optional feature."""


def langacp(*args: str) -> subprocess.CompletedProcess[str]:
    env = {"LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "langacp.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_protocol_report_in_plugins_json_and_check() -> None:
    listed = langacp("plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    protocol = json.loads(listed.stdout)["protocol"]
    assert protocol["protocolVersion"] == PROTOCOL_VERSION == 1
    assert set(protocol["optional"]) == set(OFFERED) == set(WORDS)
    checked = langacp("check", "langacp.testing.agent:agent")
    line = next(x for x in checked.stdout.splitlines() if "ACP protocol version" in x)
    assert f"version {PROTOCOL_VERSION}" in line and all(name in line for name in OFFERED)


def test_protocol_report_in_the_registry_entry_and_editors_doc() -> None:
    description = json.loads((REPO / "registry" / "langacp" / "agent.json").read_text())["description"]
    assert f"ACP v{PROTOCOL_VERSION}" in description
    assert all(word in description for word in WORDS.values())
    editors = (REPO / "docs" / "editors.md").read_text()
    assert f"ACP protocol version {PROTOCOL_VERSION}" in editors
    assert all(f"`{name}`" in editors for name in OFFERED)
