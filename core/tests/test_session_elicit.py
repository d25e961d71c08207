"""``SessionContext.elicit``: asking the user, and the trust rules around it.

A question reaches the client only within a turn of its session, only in a mode the client
advertised, only for an ``https:`` URL; the answer is checked against the schema that was sent.
"""

from __future__ import annotations

import contextvars
from types import SimpleNamespace
from typing import Any

import pytest
from acp.schema import (
    AcceptElicitationResponse,
    ClientCapabilities,
    DeclineElicitationResponse,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationUrlCapabilities,
)

from langacp import SessionContext
from langacp.api import ElicitationRefused, ElicitResult, FormError, check_form_answer, check_form_schema
from langacp.running import enter_turn, turn_over

FORMS = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))
SCHEMA = {
    "type": "object",
    "properties": {
        "env": {"type": "string", "enum": ["staging", "production"]},
        "replicas": {"type": "integer", "minimum": 1},
        "notify": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
    },
    "required": ["env"],
}


class Client:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[dict[str, Any]] = []

    async def create_elicitation(self, **kwargs: Any) -> Any:
        self.asked.append(kwargs)
        return self.answer


class _Sink:
    async def flush(self) -> None:
        return None


def _session(client: Client, capabilities: ClientCapabilities | None = FORMS) -> SessionContext:
    return SessionContext(session_id="s", cwd="/tmp", client=client, client_capabilities=capabilities)


async def _in_turn(session: SessionContext, message: str, schema: Any = None, **kwargs: Any) -> ElicitResult:
    """``session.elicit`` within a running turn of ``session`` (in a copy of the context, as a turn's task)."""
    reporter = SimpleNamespace(session=session, sink=_Sink())

    async def ask() -> ElicitResult:
        enter_turn(reporter)  # type: ignore[arg-type]
        try:
            return await session.elicit(message, schema, **kwargs)
        finally:
            turn_over(reporter)  # type: ignore[arg-type]

    return await contextvars.copy_context().run(ask)


async def test_an_accepted_answer_is_checked_and_returned() -> None:
    client = Client(AcceptElicitationResponse(action="accept", content={"env": "staging", "replicas": 2.0}))
    result = await _in_turn(_session(client), "Deploy?", SCHEMA)
    assert result == ElicitResult("accept", {"env": "staging", "replicas": 2})
    [asked] = client.asked
    assert asked["message"] == "Deploy?" and asked["mode"].session_id == "s"
    assert asked["mode"].requested_schema.model_dump(exclude_none=True)["required"] == ["env"]


async def test_decline_is_a_result() -> None:
    result = await _in_turn(_session(Client(DeclineElicitationResponse(action="decline"))), "Deploy?", SCHEMA)
    assert result.action == "decline" and not result.accepted


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"env": "staging", "admin": True}, "'admin' is not a field of the form"),
        ({"env": 1}, "'env' must be a string"),
        ({"env": "qa"}, "must be one of"),
        ({"env": "staging", "replicas": "3"}, "'replicas' must be a integer"),
        ({"env": "staging", "replicas": 1.5}, "must be an integer"),
        ({"env": "staging", "replicas": True}, "must be a integer"),
        ({"env": "staging", "replicas": 0}, "at least 1"),
        ({"env": "staging", "notify": "yes"}, "must be true or false"),
        ({"env": "staging", "tags": ["a", "c"]}, "must pick from"),
        ({"replicas": 2}, "'env' is required"),
        (["staging"], "not a JSON object"),
    ],
)
async def test_an_answer_that_does_not_match_the_schema_sent_is_refused(content: Any, problem: str) -> None:
    client = Client(AcceptElicitationResponse.model_construct(action="accept", content=content))
    with pytest.raises(ElicitationRefused, match=problem):
        await _in_turn(_session(client), "Deploy?", SCHEMA)


async def test_no_question_outside_a_turn_of_the_session() -> None:
    client = Client(AcceptElicitationResponse(action="accept", content={"env": "staging"}))
    session = _session(client)
    result = await session.elicit("Deploy?", SCHEMA)  # no turn at all
    assert result.action == "unavailable" and "no turn" in (result.reason or "")
    other = _session(client)  # a turn of another session runs
    reporter = SimpleNamespace(session=other, sink=_Sink())

    async def from_the_other_turn() -> ElicitResult:
        enter_turn(reporter)  # type: ignore[arg-type]
        try:
            return await session.elicit("Deploy?", SCHEMA)
        finally:
            turn_over(reporter)  # type: ignore[arg-type]

    assert (await contextvars.copy_context().run(from_the_other_turn)).action == "unavailable"
    assert client.asked == []


async def test_a_client_that_did_not_advertise_forms_is_not_asked() -> None:
    client = Client(AcceptElicitationResponse(action="accept", content={"env": "staging"}))
    result = await _in_turn(_session(client, ClientCapabilities()), "Deploy?", SCHEMA)
    assert result.action == "unavailable" and "forms" in (result.reason or "")
    url_only = ClientCapabilities(elicitation=ElicitationCapabilities(url=ElicitationUrlCapabilities()))
    assert (await _in_turn(_session(client, url_only), "Deploy?", SCHEMA)).action == "unavailable"
    assert client.asked == []


async def test_url_mode_only_for_https() -> None:
    both = ClientCapabilities(
        elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities())
    )
    client = Client(AcceptElicitationResponse(action="accept"))
    for url in ("http://example.com/login", "javascript:alert(1)", "file:///etc/passwd", "HTTPS:/x"):
        with pytest.raises(ValueError, match="only https"):
            await _in_turn(_session(client, both), "Sign in", url=url)
    assert client.asked == []
    result = await _in_turn(_session(client, both), "Sign in", url="https://example.com/login")
    assert result.action == "accept"
    assert str(client.asked[0]["mode"].url) == "https://example.com/login"
    assert (await _in_turn(_session(client), "Sign in", url="https://example.com/")).action == "unavailable"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"nested": {"type": "object", "properties": {}}}},
        {"type": "array"},
        {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string"}}}},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
    ],
)
def test_a_schema_outside_acps_restricted_one_is_refused(schema: Any) -> None:
    with pytest.raises(FormError):
        check_form_schema(schema)


def test_an_answer_is_checked_as_the_schema_says() -> None:
    assert check_form_answer(SCHEMA, {"env": "production", "tags": ["b"], "notify": False}) == {
        "env": "production",
        "tags": ["b"],
        "notify": False,
    }
