"""``langacp serve`` pauses the cyclic garbage collector while it starts, and turns it back on.

Start-up builds many long-lived objects and little garbage: the collector is off until the
target and the store are loaded, then what exists is frozen (left out of later collections)
and the collector runs again; the source lines cached while importing are let go. An agent
embedded in another process keeps that process's collector as it is.
"""

from __future__ import annotations

import gc
import re

from core_support import FIXTURES

from langacp import startup_gc
from langacp.testing.harness import serve


async def test_the_collector_runs_again_once_the_target_is_loaded() -> None:
    async with serve(f"{FIXTURES / 'gc_target.py'}:agent", args=["--store", "memory"]) as agent:
        session_id = await agent.start()
        text = await agent.reply(session_id, "tool gc_state {}")
    match = re.search(r"enabled=(\w+) frozen=(\d+) schema_cached=(\w+)", text)
    assert match is not None, text
    assert match.group(1) == "True"
    assert int(match.group(2)) > 10_000  # the SDK, LangChain and the target, left out of collections
    assert match.group(3) == "False"  # the source lines the SDK's models read at import were let go


def test_resume_leaves_a_collector_it_did_not_pause_alone() -> None:
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        startup_gc.pause()  # already off: not ours to turn back on
        startup_gc.resume()
        assert not gc.isenabled()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.enable()
    startup_gc.resume()  # nothing paused: nothing frozen
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
