"""The usage plugin in process: usage_update after each model call, usage in the prompt response."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from langacp.testing.harness import ServedAgent, serve_in_process

HERE = Path(__file__).resolve().parent
AGENT = str(HERE / "usage_agent.py")


@asynccontextmanager
async def served(target: str = "agent", *, plugin: bool = True, cwd: Path | None = None) -> AsyncIterator[ServedAgent]:
    env = {"XDG_CONFIG_HOME": str(HERE / "no-user-config")}
    async with serve_in_process(f"{AGENT}:{target}", plugins=["usage"] if plugin else [], env=env, cwd=cwd) as agent:
        yield agent


async def prompt(agent: ServedAgent, sid: str, text: str) -> Any:
    return await agent.conn.prompt(session_id=sid, prompt=[text_block(text)])


async def test_one_update_per_model_call_against_the_profile_window() -> None:
    async with served() as agent:
        sid = await agent.start()
        response = await prompt(agent, sid, "echo hello there")
        [update] = agent.client.of(sid, "usage_update")
        assert update.size == 4000 and update.cost is None
        assert response.stop_reason == "end_turn" and response.usage is not None
        assert update.used == response.usage.total_tokens == response.usage.input_tokens + 3  # 11 chars / 4

        agent.client.updates.clear()
        response = await prompt(agent, sid, 'tool add {"a": 1, "b": 2}')
        first, second = agent.client.of(sid, "usage_update")  # two model calls
        assert first.used > update.used  # the conversation grew
        assert first.used + second.used == response.usage.total_tokens  # the turn's totals add both calls


async def test_config_windows_and_prices(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text(
        "[usage]\n"
        'currency = "EUR"\n'
        "[usage.context_windows]\n"
        "scripted = 1234\n"
        "[usage.prices.scripted]\n"
        "input = 1000.0\n"
        "output = 2000.0\n"
        "[stop_reasons]\n"
        "max_model_calls = 7\n"  # another plugin's table: ignored
    )
    async with served(cwd=tmp_path) as agent:
        sid = await agent.start()
        one = await prompt(agent, sid, "echo one")
        [update] = agent.client.of(sid, "usage_update")
        assert update.size == 1234  # the config wins over the profile
        cost = (one.usage.input_tokens * 1000 + one.usage.output_tokens * 2000) / 1e6
        assert update.cost is not None and update.cost.currency == "EUR"
        assert update.cost.amount == pytest.approx(cost)
        two = await prompt(agent, sid, "echo two")
        cost += (two.usage.input_tokens * 1000 + two.usage.output_tokens * 2000) / 1e6
        assert agent.client.of(sid, "usage_update")[-1].cost.amount == pytest.approx(cost)  # cumulative

        await agent.conn.close_session(session_id=sid)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid)
        replayed = agent.client.of(sid, "usage_update")
        assert replayed and replayed[0].cost.amount == pytest.approx(cost) and replayed[0].size == 1234


async def test_unknown_window_sends_no_update_but_the_response_has_usage() -> None:
    async with served("no_profile_agent") as agent:
        sid = await agent.start()
        response = await prompt(agent, sid, "echo hi")
        assert agent.client.of(sid, "usage_update") == []
        assert response.usage is not None and response.usage.total_tokens > 0


async def test_agent_without_middleware_gets_one_update_per_turn(tmp_path: Path) -> None:
    # Without middleware the model object (and its profile) is out of reach: the window comes from the config.
    (tmp_path / ".langacp.toml").write_text("[usage]\ncontext_window = 3000\n")
    async with served("graph_agent", cwd=tmp_path) as agent:
        sid = await agent.start()
        response = await prompt(agent, sid, 'tool add {"a": 1, "b": 2}')
        [update] = agent.client.of(sid, "usage_update")
        assert update.size == 3000 and update.used > 0
        kinds = [u.session_update for u in agent.client.of(sid)]
        assert kinds[-1] == "usage_update"  # sent before the response
        assert response.usage is not None


async def test_core_alone_sends_no_usage() -> None:
    async with served(plugin=False) as agent:
        sid = await agent.start()
        response = await prompt(agent, sid, "echo hi")
        assert response.usage is None and agent.client.of(sid, "usage_update") == []


def test_reads_the_sessions_configuration_not_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files are read once when the session opens (``layers_for``), not again by each hook."""
    from langacp.api import SessionContext, layers_for
    from langacp_usage.meter import Meter

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    (tmp_path / ".langacp.toml").write_text('[usage]\ncurrency = "EUR"\n')
    session = SessionContext("s", str(tmp_path))
    layers_for(session)  # what the core does as the session opens
    (tmp_path / ".langacp.toml").unlink()
    assert Meter(session).currency == "EUR"


def test_a_session_with_no_usage_table_keeps_none_and_a_set_table_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from langacp.api import SessionContext, layers_for
    from langacp_usage.meter import Meter

    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    model = SimpleNamespace(profile={"max_input_tokens": 4000})
    bare = Meter(SessionContext("s", str(tmp_path)))
    assert bare.config is None  # the defaults: nothing of its own kept
    assert (bare.window("m", model), bare.prices("m"), bare.currency) == (4000, None, "USD")

    (config / "langacp").mkdir(parents=True)
    (config / "langacp" / "config.toml").write_text(
        '[usage]\ncurrency = "EUR"\ncontext_windows = { m = 1000 }\nprices = { "*" = { input = 1.0, output = 2.0 } }\n'
    )
    session = SessionContext("t", str(tmp_path / "elsewhere"))
    (tmp_path / "elsewhere").mkdir()
    layers_for(session)
    set_table = Meter(session)
    assert set_table.config is not None and set_table.currency == "EUR"
    assert (set_table.window("m", model), set_table.window("other", model)) == (1000, 4000)
    prices = set_table.prices("m")
    assert prices is not None and (prices.input, prices.output) == (1.0, 2.0)
