"""``langacp serve`` keeps httpx's command-line client and getpass out of start-up, and lets httpx's be imported later.

httpx imports it (with click, rich and pygments) whenever click is installed, as it is with every
plugin: ~4 MB and ~50 ms the server never uses. Only while the agent starts is it blocked.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest
from core_support import FIXTURES

from langacp import startup_imports
from langacp.testing.harness import serve

needs_click = pytest.mark.skipif(
    importlib.util.find_spec("click") is None or importlib.util.find_spec("httpx") is None,
    reason="httpx imports its command-line client only when click is installed",
)


@needs_click
async def test_serve_starts_without_httpx_cli_and_lifts_the_block() -> None:
    async with serve(f"{FIXTURES / 'imports_target.py'}:agent", args=["--store", "memory"]) as agent:
        session_id = await agent.start()
        text = await agent.reply(session_id, "tool import_state {}")
    state = json.loads(text[text.index("{") : text.rindex("}") + 1])
    assert state["httpx"] is True  # LangSmith imported it while the target loaded
    assert state["httpx._main"] is False
    assert state["click"] is False
    assert state["getpass"] is False  # only `langacp login` reads a key from the terminal
    assert state["termios"] is False
    assert state["imports_now"] is True  # start-up is over: nothing is blocked any more


def test_block_leaves_an_imported_module_alone_and_unblock_removes_only_its_own() -> None:
    saved = {name: sys.modules.get(name) for name in startup_imports.BLOCKED}
    try:
        for name in startup_imports.BLOCKED:
            sys.modules.pop(name, None)
        startup_imports.block()
        assert all(sys.modules[name] is None for name in startup_imports.BLOCKED)
        startup_imports.unblock()
        assert not any(name in sys.modules for name in startup_imports.BLOCKED)
        sentinel = object()
        for name in startup_imports.BLOCKED:
            sys.modules[name] = sentinel  # type: ignore[assignment]
        startup_imports.block()  # already imported: not blocked
        startup_imports.unblock()
        assert all(sys.modules[name] is sentinel for name in startup_imports.BLOCKED)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
