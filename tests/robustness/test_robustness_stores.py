"""Session stores under two processes and failing writes: nothing is lost silently."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from robustness_support import raw_agent


async def test_two_agent_processes_on_one_sqlite_session_lose_no_turn_silently(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    cwd = str(tmp_path)
    answered: list[str] = []
    async with raw_agent(tmp_path, "langacp.testing.agent:agent", "--store", url, name="a") as first:
        async with raw_agent(tmp_path, "langacp.testing.agent:agent", "--store", url, name="b") as second:
            sid = await first.start(cwd)
            assert "result" in await second.request("initialize", {"protocolVersion": 1})
            for turn in range(3):
                # The first process serves the session: the second is refused, clearly.
                refused = await second.request("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
                assert refused["error"]["code"] == -32602
                assert "open in another langacp process" in refused["error"]["data"]["details"]
                reply = await first.prompt(sid, f"echo a{turn}")
                assert reply["result"]["stopReason"] == "end_turn"
                answered.append(f"a{turn}")
                # Handed over: the first closes it, the second loads and prompts.
                assert "result" in await first.request("session/close", {"sessionId": sid})
                loaded = await second.request("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
                assert "result" in loaded, loaded
                reply = await second.prompt(sid, f"echo b{turn}")
                assert reply["result"]["stopReason"] == "end_turn"
                answered.append(f"b{turn}")
                assert "result" in await second.request("session/close", {"sessionId": sid})
                loaded = await first.request("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
                assert "result" in loaded, loaded
            reply = await first.prompt(sid, "history")
            history = first.notifications[-1]["params"]["update"]["content"]["text"]
    assert history.split(" | ") == [f"echo {t}" for t in answered] + ["history"]


async def test_a_lease_of_a_killed_process_is_taken_over_at_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    async with raw_agent(tmp_path, "langacp.testing.agent:agent", "--store", url, name="a") as first:
        sid = await first.start(str(tmp_path))
        assert (await first.prompt(sid, "echo kept"))["result"]["stopReason"] == "end_turn"
        first.process.kill()
        await first.process.wait()
    async with raw_agent(tmp_path, "langacp.testing.agent:agent", "--store", url, name="b") as second:
        assert "result" in await second.request("initialize", {"protocolVersion": 1})
        loaded = await second.request("session/load", {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []})
        assert "result" in loaded, loaded


async def test_a_failing_write_fails_that_prompt_and_the_agent_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    async with raw_agent(tmp_path, "langacp.testing.agent:agent", "--store", f"sqlite:///{path}") as agent:
        sid = await agent.start(str(tmp_path))
        assert (await agent.prompt(sid, "echo before"))["result"]["stopReason"] == "end_turn"
        with sqlite3.connect(path) as db:  # what a full disk does to every write
            db.execute(
                "CREATE TRIGGER full BEFORE INSERT ON checkpoints "
                "BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END"
            )
        reply = await agent.prompt(sid, "echo during")
        assert reply["error"]["code"] == -32603 and "disk is full" in str(reply["error"]["data"])
        with sqlite3.connect(path) as db:
            db.execute("DROP TRIGGER full")
        reply = await agent.prompt(sid, "history")
        assert reply["result"]["stopReason"] == "end_turn"
