"""langacp-elicitation over real pipes: a graph's ``interrupt(value)`` asked as a form (a client that
advertises ``elicitation.form``) or as the agent's message answered by the next prompt (one that does not)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp import text_block

from langacp.client import RecordingClient
from langacp.testing.forms import FormClient
from langacp.testing.harness import serve
from langacp.testing.polling import eventually

GRAPHS = Path(__file__).with_name("elicitation_graphs.py")
ASKER = f"{GRAPHS}:asker"
PARALLEL = f"{GRAPHS}:parallel"


def _answers(message: str, schema: dict[str, Any]) -> dict[str, Any] | str:
    fields = schema["properties"]
    if "branch" in message:
        return {"answer": "main"}
    if "environment" in message:
        assert fields["answer"]["enum"] == ["staging", "production"]
        return {"answer": "production"}
    if "How many" in message:
        assert fields["answer"]["oneOf"] == [{"const": "1", "title": "one"}, {"const": "2", "title": "two"}]
        return {"answer": "2"}
    if "Who reviews" in message:
        return {"answer": "ann"}
    if set(fields) == {"environment", "replicas", "notify", "note"}:
        assert fields["environment"]["enum"] == ["staging", "production"]
        assert fields["replicas"]["type"] == "integer" and fields["notify"]["type"] == "boolean"
        assert fields["note"]["type"] == "string" and schema["required"] == ["environment", "replicas"]
        if "Deployment" not in message:  # the instance's values prefill its form
            assert (fields["environment"]["default"], fields["replicas"]["default"]) == ("staging", 1)
        return {"environment": "staging", "replicas": 3}
    if "The agent asks" in message:
        assert json.loads(message.split("\n", 1)[1]) == [1, {"x": "y"}]
        return {"answer": "ok"}
    raise AssertionError(f"unexpected question {message!r}")


async def test_questions_are_asked_as_forms_and_resume_the_graph() -> None:
    client = FormClient(answer_form=_answers)
    async with serve(ASKER, plugins=["elicitation"], client=client) as agent:
        sid = await agent.start()
        expected = {
            "string": '"main"',
            "options": '"production"',
            "labelled": "2",
            "model": '{"environment": "staging", "replicas": 3}',
            "schema": '{"environment": "staging", "replicas": 3}',
            "json": '"ok"',
        }
        for word, resumed in expected.items():
            assert f"resumed with {resumed}" in await agent.reply(sid, word), word
        assert [q.mode for q in client.questions] == ["form"] * len(expected)
        assert client.questions[1].message == "Which environment should I deploy to?"
        assert client.questions[3].message == "Where and how to deploy."  # the model's docstring
        assert all(q.session_id == sid for q in client.questions)


async def test_parallel_interrupts_are_one_question_each_resumed_together() -> None:
    client = FormClient(answer_form=_answers)
    async with serve(PARALLEL, plugins=["elicitation"], client=client) as agent:
        sid = await agent.start()
        assert "resumed with branch=main, reviewer=ann" in await agent.reply(sid, "go")
        assert sorted(q.message for q in client.questions) == ["Which branch?", "Who reviews?"]


async def test_decline_ends_the_turn_and_the_next_prompt_answers() -> None:
    client = FormClient()  # declines every question
    async with serve(ASKER, plugins=["elicitation"], client=client) as agent:
        sid = await agent.start()
        text = await agent.reply(sid, "options")
        assert "You declined to answer" in text and "resumed with" not in text
        text = await agent.reply(sid, "production")
        assert 'resumed with "production"' in text
        assert len(client.questions) == 1  # the paused question was answered by the prompt, not asked again


async def test_cancel_while_the_form_is_open_keeps_the_thread_resumable() -> None:
    hold = asyncio.Event()
    client = FormClient(answer_form=_answers, hold=hold)
    async with serve(ASKER, plugins=["elicitation"], client=client) as agent:
        sid = await agent.start()
        turn = asyncio.ensure_future(agent.prompt(sid, "string"))
        await eventually(lambda: bool(client.questions))
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
        hold.set()
        assert 'resumed with "feature-x"' in await agent.reply(sid, "feature-x")


async def test_an_answer_with_extra_or_wrong_typed_fields_is_refused() -> None:
    attacks: list[dict[str, Any]] = [
        {"answer": "production", "admin": True},  # a field the form does not have
        {"answer": 7},  # wrong type
        {"answer": "rm -rf /"},  # not an offered option
    ]
    client = FormClient(answer_form=lambda message, schema: attacks.pop(0))
    async with serve(ASKER, plugins=["elicitation"], client=client) as agent:
        await agent.initialize()
        for problem in ("'admin' is not a field of the form", "must be a string", "must be one of"):
            sid = await agent.new_session()
            text = await agent.reply(sid, "options")
            assert "Your answer was not used" in text and problem in text, text
            assert "resumed with" not in text
            # the graph is still paused on the question: a prompt naming an option answers it
            assert 'resumed with "staging"' in await agent.reply(sid, "1")


async def test_a_client_without_forms_gets_the_question_as_a_message() -> None:
    client = RecordingClient()
    async with serve(ASKER, plugins=["elicitation"], client=client) as agent:
        sid = await agent.start()
        text = await agent.reply(sid, "options")
        assert "Which environment should I deploy to?" in text
        assert "1. staging" in text and "2. production" in text and "resumed with" not in text
        text = await agent.reply(sid, "nowhere")  # not an option: asked again
        assert "does not answer the question" in text and "1. staging" in text
        assert 'resumed with "production"' in await agent.reply(sid, "2")
        # the thread is not paused any more: the next prompt is a new run
        assert 'resumed with "main"' in await _answer_string(agent, sid)


async def _answer_string(agent: Any, sid: str) -> str:
    text = await agent.reply(sid, "string")
    assert "Which branch should I merge?" in text
    return str(await agent.reply(sid, "main"))


async def test_several_questions_without_forms_are_answered_one_prompt_each() -> None:
    async with serve(PARALLEL, plugins=["elicitation"]) as agent:
        sid = await agent.start()
        first = await agent.reply(sid, "go")
        assert "Question 1 of 2" in first
        second = await agent.reply(sid, "main" if "branch" in first else "ann")
        assert "resumed with" not in second
        third = await agent.reply(sid, "main" if "branch" in second else "ann")
        assert "resumed with branch=main, reviewer=ann" in third


async def test_load_of_a_paused_session_shows_the_question_again() -> None:
    async with serve(ASKER, plugins=["elicitation"]) as agent:
        sid = await agent.start()
        await agent.reply(sid, "options")
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])
        replayed = agent.client.text(sid)
        assert "Which environment should I deploy to?" in replayed and "2. production" in replayed
        response = await agent.conn.prompt(session_id=sid, prompt=[text_block("staging")])
        assert response.stop_reason == "end_turn"
        assert 'resumed with "staging"' in agent.client.text(sid)


async def test_without_the_plugin_the_turn_ends_unanswered() -> None:
    async with serve(ASKER) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "options") == "cancelled"
        assert "no installed langacp plugin answers interrupts" in agent.client.text(sid)
