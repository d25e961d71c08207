"""Answering interrupts: a form per question when the client takes forms, else the question as the
agent's message, answered by the next prompt.

* Every question answered: the graph resumes with the answer (several interrupts: ``{interrupt id:
  answer}``, together).
* The user declines a form: the turn ends ``end_turn``; the user cancels it: ``cancelled``. Either
  way the graph stays paused on its interrupts, and the next prompt answers them.
* A client without forms: the question is the agent's message, the turn ends ``end_turn``, and the
  next prompt's text is the answer (an option by its text or its number; a form of several fields as
  a JSON object). Several questions are answered one prompt each, then resumed together.
* An answer that does not match its form is refused: said to the user, the graph stays paused.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langacp.api import (
    ElicitationRefused,
    FormError,
    Question,
    SessionContext,
    TurnPaused,
    check_form_answer,
    form_options,
)
from langacp_elicitation.mapping import question_for

__all__ = ["Waiting", "answer_interrupts", "question_of"]


@dataclass
class Waiting:
    """What the session's paused graph has been answered so far (saved with the session)."""

    answers: dict[str, Any] = field(default_factory=dict)
    """Answers by interrupt id, kept until every pending question has one."""


def question_of(session: SessionContext, value: Any) -> Question:
    """The question of an interrupt's value: a plugin's mapping (``langacp_interrupt_question``), else ours."""
    plugins = session.plugins
    found = plugins.interrupt_question(value, session) if plugins is not None else None
    return found if found is not None else question_for(value)


def _interrupt_id(interrupt: Any, index: int) -> str:
    found = getattr(interrupt, "id", None)
    return found if isinstance(found, str) and found else f"interrupt-{index}"


async def answer_interrupts(session: SessionContext, interrupts: Sequence[Any], prompt: Sequence[Any] | None) -> Any:
    """The value the graph resumes with (one interrupt: its answer; several: the answers by interrupt id,
    which LangGraph resumes together); :class:`TurnPaused` when it must wait for the user."""
    waiting = session.data(Waiting)
    ids = [_interrupt_id(interrupt, index) for index, interrupt in enumerate(interrupts)]
    waiting.answers = {key: value for key, value in waiting.answers.items() if key in ids}
    questions = {key: question_of(session, getattr(i, "value", None)) for key, i in zip(ids, interrupts, strict=True)}
    open_ids = [key for key in ids if key not in waiting.answers]
    if prompt is not None and open_ids:  # the graph waited: this prompt answers its first open question
        key = open_ids[0]
        answer = await _from_prompt(session, questions[key], _prompt_text(prompt))
        waiting.answers[key] = answer
        open_ids.pop(0)
    for key in list(open_ids):
        answer = await _by_form(session, questions[key])
        if answer is _UNASKED:
            await _say(session, _fallback_text(questions, key, open_ids))
            raise TurnPaused("the question waits for the user's next prompt")
        waiting.answers[key] = answer
        open_ids.remove(key)
    answers = {key: waiting.answers.pop(key) for key in ids}
    return answers[ids[0]] if len(ids) == 1 else answers


_UNASKED = object()


async def _by_form(session: SessionContext, question: Question) -> Any:
    """The answer through a form; ``_UNASKED`` when the client takes no forms. Decline / cancel pause the graph."""
    try:
        result = await session.elicit(question.message, question.schema)
    except ElicitationRefused as exc:
        await _say(session, f"Your answer was not used: {exc}. The agent is still waiting for it.")
        raise TurnPaused(str(exc)) from None
    if result.action == "unavailable":
        return _UNASKED
    if result.action == "decline":
        await _say(session, "You declined to answer. The agent is still waiting: your next message answers it.")
        raise TurnPaused("the user declined")
    if result.action == "cancel":
        raise TurnPaused("the user cancelled the question", stop_reason="cancelled")
    try:
        return question.resume(result.content or {})
    except FormError as exc:
        await _say(session, f"Your answer was not used: {exc}. The agent is still waiting for it.")
        raise TurnPaused(str(exc)) from None


async def _from_prompt(session: SessionContext, question: Question, text: str) -> Any:
    """The answer a prompt's ``text`` gives to ``question``; said and :class:`TurnPaused` when it does not fit."""
    try:
        return question.resume(check_form_answer(question.schema, _content_of(question, text)))
    except FormError as exc:
        await _say(session, f"That does not answer the question ({exc}).\n\n{question.text()}")
        raise TurnPaused(str(exc)) from None


def _content_of(question: Question, text: str) -> Any:
    """A form's content from typed text: one field takes the text (an option by its text or number, a
    number or yes / no by type); several take a JSON object."""
    fields = question.fields()
    if len(fields) != 1:
        try:
            return json.loads(text)
        except ValueError:
            raise FormError("reply with a JSON object of the fields") from None
    name, prop = next(iter(fields.items()))
    kind = prop.get("type")
    value: Any = text.strip()
    options = form_options(prop)
    if kind == "string" and options:
        value = _option(prop, options, value)
    elif kind in ("number", "integer"):
        try:
            value = float(value) if kind == "number" else int(value)
        except ValueError:
            raise FormError(f"{value!r} is not a {kind}") from None
    elif kind == "boolean":
        value = _YES_NO.get(value.lower(), value)
    elif kind == "array":
        value = [_option(prop, options, part.strip()) for part in value.split(",") if part.strip()]
    return {name: value}


_YES_NO = {"yes": True, "y": True, "true": True, "no": False, "n": False, "false": False}


def _option(prop: dict[str, Any], options: list[str], typed: str) -> str:
    """The option ``typed`` names: its value or title (any case), or its number in the list."""
    items = prop.get("items", prop) if prop.get("type") == "array" else prop
    titles = {str(c.get("title", "")).lower(): str(c["const"]) for c in items.get("oneOf") or [] if "const" in c}
    lowered = typed.lower()
    for option in options:
        if option.lower() == lowered:
            return option
    if lowered in titles:
        return titles[lowered]
    if typed.isdigit() and 1 <= int(typed) <= len(options):
        return options[int(typed) - 1]
    return typed  # not an option: refused by the form's check, which names the options


def _prompt_text(prompt: Sequence[Any]) -> str:
    return "".join(getattr(block, "text", "") for block in prompt if getattr(block, "type", None) == "text")


def _fallback_text(questions: dict[str, Question], key: str, open_ids: list[str]) -> str:
    text = questions[key].text()
    if len(open_ids) > 1:
        text = f"(Question {open_ids.index(key) + 1} of {len(open_ids)}; one reply each.)\n{text}"
    return text


async def _say(session: SessionContext, text: str) -> None:
    from acp import update_agent_message_text

    if session.send_update is not None:
        await session.send_update(update_agent_message_text(f"\n\n{text}\n"))
