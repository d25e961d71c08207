"""Each stop reason and each provider error, produced with the scripted model over real pipes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError, text_block
from stop_reasons_support import served

from langacp.client import RecordingClient


async def test_end_turn_and_max_tokens_from_a_length_finish() -> None:
    async with served() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "echo hi") == "end_turn"
        assert await agent.prompt(sid, "truncated") == "max_tokens"
        assert await agent.prompt(sid, "echo again") == "end_turn"


async def test_cancelled() -> None:
    async with served() as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "slow 30"))
        await agent.client.wait_for(lambda updates: any(u.session_update == "tool_call" for _, u in updates))
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"


async def test_refusal_finish_forgets_the_prompt() -> None:
    async with served() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "echo one") == "end_turn"
        assert await agent.prompt(sid, "refuse") == "refusal"
        agent.client.updates.clear()
        assert await agent.prompt(sid, "history") == "end_turn"
        assert agent.client.text(sid) == "echo one | history"  # the refused prompt left the thread


async def test_refusal_forgetting_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text("[stop_reasons]\nforget_refusals = false\n")
    async with served(cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "refuse") == "refusal"
        agent.client.updates.clear()
        await agent.prompt(sid, "history")
        assert agent.client.text(sid) == "refuse | history"


async def test_refusal_block() -> None:
    async with served(fixture=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "refuse_block") == "refusal"  # read from the turn's last message
        assert await agent.prompt(sid, "echo fine") == "end_turn"


async def test_max_turn_requests_counts_model_calls_across_permission_round_trips(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text('[stop_reasons]\nmax_model_calls = 3\n[usage]\ncurrency = "EUR"\n')
    async with served(fixture=True, cwd=tmp_path) as agent:  # the fixture asks permission for every add
        sid = await agent.start()
        assert await agent.prompt(sid, "tools 10") == "max_turn_requests"
        assert len(agent.client.permission_requests) == 3  # three model calls, each asked once
        assert "reached the limit of 3 model calls" in agent.client.text(sid)
        agent.client.updates.clear()
        assert await agent.prompt(sid, "tools 2") == "end_turn"  # the count starts again with each prompt


async def test_human_in_the_loop_resumes_do_not_reset_the_count(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text("[stop_reasons]\nmax_model_calls = 3\n")
    async with served("langacp.testing.agent:hitl_agent", fixture=True, cwd=tmp_path) as agent:
        sid = await agent.start()  # every add interrupts; the fixture plugin approves each one
        assert await agent.prompt(sid, "tools 10") == "max_turn_requests"
        assert len(agent.client.of(sid, "tool_call")) == 3


async def test_model_call_limit_default_and_environment(tmp_path: Path) -> None:
    async with served() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tools 49") == "end_turn"  # 49 tool calls + the answer: 50 model calls
        assert await agent.prompt(sid, "tools 50") == "max_turn_requests"
    (tmp_path / ".langacp.toml").write_text("[stop_reasons]\nmax_model_calls = 3\n")
    async with served(env={"LANGACP_MAX_MODEL_CALLS": "2"}, cwd=tmp_path) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tools 5") == "max_turn_requests"
        assert len(agent.client.of(sid, "tool_call")) == 2


async def test_the_limit_stops_between_calls_and_every_call_was_shown_whole() -> None:
    """The limit ends the turn before a model call: no call is left announced without its arguments."""
    async with served(env={"LANGACP_MAX_MODEL_CALLS": "2"}) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tools 5") == "max_turn_requests"
        calls = [u for u in agent.client.of(sid) if u.session_update in ("tool_call", "tool_call_update")]
        assert [(u.session_update, u.status, u.raw_input) for u in calls] == [
            ("tool_call", "pending", None),
            ("tool_call_update", "in_progress", {"a": 0, "b": 1}),
            ("tool_call_update", "completed", None),
            ("tool_call", "pending", None),
            ("tool_call_update", "in_progress", {"a": 1, "b": 1}),
            ("tool_call_update", "completed", None),
        ]


@pytest.mark.parametrize(
    ("kind", "code", "said", "data"),
    [
        ("auth", -32000, "rejected the agent's credentials (HTTP 401)", {"reason": "auth", "status": 401}),
        ("rate_limit", -32603, "Wait about 20 seconds", {"reason": "rate_limit", "retryAfter": 20.0}),
        ("quota", -32603, "quota is used up", {"reason": "quota"}),
        ("overloaded", -32603, "overloaded or failing (HTTP 529)", {"reason": "overloaded"}),
        ("network", -32603, "Could not reach the model provider", {"reason": "network"}),
    ],
)
async def test_provider_errors_tell_the_user_and_answer_with_an_error(
    kind: str, code: int, said: str, data: dict[str, object]
) -> None:
    async with served() as agent:
        sid = await agent.start()
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, f"provider {kind}")
        assert err.value.code == code
        assert data.items() <= err.value.data.items()
        assert said in agent.client.text(sid)
        assert await agent.prompt(sid, "echo still serving") == "end_turn"


async def test_context_window_error_is_max_tokens_and_refusal_error_is_refusal() -> None:
    async with served() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "provider context") == "max_tokens"
        assert "no longer fits in the model's context window" in agent.client.text(sid)
        agent.client.updates.clear()
        assert await agent.prompt(sid, "provider refusal") == "refusal"
        assert agent.client.text(sid).strip() == "The model refused to answer this request."


async def test_without_middleware_errors_and_finishes_are_still_mapped() -> None:
    async with served("graph_agent") as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "truncated") == "max_tokens"
        assert await agent.prompt(sid, "refuse") == "refusal"
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "provider rate_limit")
        assert err.value.data["reason"] == "rate_limit"
        assert "rate-limiting" in agent.client.text(sid)


async def test_core_alone_for_comparison() -> None:
    async with served(plugin=False) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "truncated") == "end_turn"
        assert await agent.prompt(sid, "refuse") == "end_turn"
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "provider auth")
        assert err.value.code == -32603


async def test_bad_limit_value_falls_back_to_the_default(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text('[stop_reasons]\nmax_model_calls = "lots"\n')
    client = RecordingClient()
    async with served(cwd=tmp_path, client=client) as agent:
        sid = await agent.start()
        assert (await agent.conn.prompt(session_id=sid, prompt=[text_block("tools 3")])).stop_reason == "end_turn"
        assert "max_model_calls must be a whole number" in agent.stderr()


def test_reads_the_sessions_configuration_not_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files are read once when the session opens (``layers_for``), not again by each hook."""
    from langacp.api import SessionContext, layers_for
    from langacp_stop_reasons import plugin

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    monkeypatch.delenv("LANGACP_MAX_MODEL_CALLS", raising=False)
    (tmp_path / ".langacp.toml").write_text("[stop_reasons]\nmax_model_calls = 3\nforget_refusals = false\n")
    session = SessionContext("s", str(tmp_path))
    layers_for(session)  # what the core does as the session opens
    (tmp_path / ".langacp.toml").unlink()
    [limits] = plugin.langacp_session_middleware(session)
    assert (limits.max_model_calls, limits.forget_refusals) == (3, False)


@pytest.mark.parametrize(("project", "calls"), [(0, 3), (1000, 3), (2, 2)])
async def test_a_project_file_may_only_lower_the_model_call_limit(tmp_path: Path, project: int, calls: int) -> None:
    """A cloned repository's ``max_model_calls = 0`` (no limit) or a larger number must not lift the user's limit."""
    from stop_reasons_support import AGENT

    from langacp.testing.harness import serve, write_user_config

    write_user_config(tmp_path, "[stop_reasons]\nmax_model_calls = 3\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / ".langacp.toml").write_text(f"[stop_reasons]\nmax_model_calls = {project}\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with serve(f"{AGENT}:agent", plugins=["stop_reasons"], env=env, cwd=work) as agent:  # real pipes
        sid = await agent.start()
        assert await agent.prompt(sid, "tools 5") == "max_turn_requests"
        assert len(agent.client.of(sid, "tool_call")) == calls
