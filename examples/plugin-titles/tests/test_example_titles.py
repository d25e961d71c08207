"""The example plugin, installed: found by entry point, overrides the default title, and blockable."""

from __future__ import annotations

from langacp.plugins import load_plugins
from langacp.testing.harness import serve

TARGET = "langacp.testing.agent:agent"


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=True)
    [record] = [r for r in plugins.records if r.name == "example_titles"]
    assert record.status == "loaded"
    assert record.distribution == "langacp-example-titles"
    assert record.hooks == ["langacp_tool_title"]


async def _titles(*args: str) -> list[str]:
    # isolate=False: autoload on, as for a user who just installed the package.
    async with serve(TARGET, args=args, isolate=False) as agent:
        sid = await agent.start()
        await agent.prompt(sid, 'tool add {"a": 2, "b": 3}')
        return [u.title for u in agent.client.of(sid) if u.session_update.startswith("tool_call") and u.title]


async def test_installing_it_overrides_the_default_title() -> None:
    assert (await _titles())[-1] == "add(a=2, b=3)"


async def test_blocking_it_restores_the_default() -> None:
    assert (await _titles("-p", "no:example_titles"))[-1] == "add"
