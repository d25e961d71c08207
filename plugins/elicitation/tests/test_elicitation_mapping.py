"""The mapping of interrupt values to questions, and a third party's own mapping winning over it."""

from __future__ import annotations

from typing import Any

from langacp.api import Question, SessionContext, check_form_schema, hookimpl
from langacp.plugins import load_plugins
from langacp_elicitation.mapping import question_for


def test_found_through_its_entry_point() -> None:
    plugins = load_plugins(autoload=False, enabled=["elicitation"])
    [record] = [r for r in plugins.records if r.name == "elicitation"]
    assert record.status == "loaded" and record.distribution == "langacp-elicitation"
    assert {"langacp_resume_interrupt", "langacp_interrupt_question"} <= set(record.hooks)


class TicketMapper:
    """A third party's mapper for its own payloads: ``{"ticket": id}``."""

    @hookimpl
    def langacp_interrupt_question(self, value: Any, session: SessionContext) -> Question | None:
        if not (isinstance(value, dict) and "ticket" in value):
            return None
        schema = {"type": "object", "properties": {"close": {"type": "boolean"}}, "required": ["close"]}
        return Question(f"Close ticket {value['ticket']}?", schema, lambda content: bool(content["close"]))


def test_a_plugins_own_mapping_wins_and_others_fall_through() -> None:
    plugins = load_plugins(autoload=False, enabled=["elicitation"])
    plugins.register(TicketMapper(), "tickets")
    session = SessionContext("s", "/tmp")
    mine = plugins.interrupt_question({"ticket": 7}, session)
    assert mine is not None and mine.message == "Close ticket 7?" and mine.resume({"close": True}) is True
    other = plugins.interrupt_question("Which branch?", session)
    assert other is not None and other.message == "Which branch?"  # langacp-elicitation's, trylast


def test_hitl_requests_are_left_to_langacp_permissions() -> None:
    plugins = load_plugins(autoload=False, enabled=["elicitation"])
    session = SessionContext("s", "/tmp")
    assert plugins.interrupt_question({"action_requests": [], "review_configs": []}, session) is None
    assert plugins.interrupt_question({"type": "tool_approval", "name": "rm"}, session) is None


def test_every_mapped_form_is_within_acps_restricted_schema() -> None:
    values: list[Any] = [
        "Which branch?",
        {"question": "Deploy?", "options": ["a", {"label": "B", "value": {"x": 1}}, 3]},
        {"prompt": "Name?"},
        {"type": "object", "title": "T", "properties": {"n": {"type": "integer"}, "deep": {"type": "object"}}},
        {"action_request": {"action": "send", "args": {"to": "x"}}, "config": {"allow_edit": True}},
        [1, 2, 3],
        None,
    ]
    for value in values:
        question = question_for(value)
        assert check_form_schema(question.schema) == question.schema
    # an option's value of any JSON comes back as it was
    labelled = question_for({"question": "Deploy?", "options": ["a", {"label": "B", "value": {"x": 1}}, 3]})
    assert labelled.resume({"answer": "2"}) == {"x": 1} and labelled.resume({"answer": "3"}) == 3
    # a nested schema is not a form: asked as JSON with one text field
    nested = question_for({"type": "object", "properties": {"deep": {"type": "object"}}})
    assert list(nested.fields()) == ["answer"] and nested.message.startswith("The agent asks:")
    # an Agent Inbox request is resumed as its response list
    inbox = question_for([{"action_request": {"action": "send", "args": {}}, "config": {"allow_respond": True}}])
    assert inbox.resume({"response": "response", "text": "no"}) == [{"type": "response", "args": "no"}]
