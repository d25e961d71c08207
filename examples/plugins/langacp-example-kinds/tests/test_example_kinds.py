"""The example kinds plugin, installed: found by entry point, overrides the kind mapper, and blockable."""

from __future__ import annotations

import json

from langacp.plugins import load_plugins
from langacp.testing.harness import serve

TARGET = "langacp.testing.workspace:agent"


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=True)
    [record] = [r for r in plugins.records if r.name == "example_kinds"]
    assert (record.status, record.distribution, record.hooks) == (
        "loaded",
        "langacp-example-kinds",
        ["langacp_permission_rules", "langacp_tool_kind"],
    )


async def _kinds(*args: str) -> dict[str, str]:
    # isolate=False: autoload on, as for a user who just installed the package.
    async with serve(TARGET, args=args, isolate=False) as agent:
        sid = await agent.start()
        kinds = {}
        for name, call_args in [("screenshot", {}), ("show_terminal", {"terminal_id": "t"}), ("list_files", {})]:
            await agent.prompt(sid, f"tool {name} {json.dumps(call_args)}")
            kinds[name] = [u.kind for u in agent.client.of(sid, "tool_call")][-1]
        return kinds


async def test_installing_it_overrides_the_kind_of_its_tools_only() -> None:
    kinds = await _kinds()
    assert (kinds["screenshot"], kinds["show_terminal"]) == ("read", "read")
    assert kinds["list_files"] == _default("list_files")  # other tools: whoever else answers


async def test_blocking_it_restores_the_default() -> None:
    kinds = await _kinds("-p", "no:example_kinds")
    assert kinds == {name: _default(name) for name in kinds}


def _default(name: str) -> str:
    """The kind without this plugin: langacp-tools' if it is installed, else the core's ``other``."""
    try:
        from langacp_tools import kind_of
    except ImportError:
        return "other"
    return kind_of(name)
