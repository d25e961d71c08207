"""Graphs that ask the user (``interrupt(value)``), served by the elicitation tests (imported by path).

``asker``: the prompt's first word picks the question (``string``, ``options``, ``model``, ``schema``,
``labelled``, ``json``); the graph answers with what it was resumed with, as JSON. ``parallel``: two
nodes ask at once.
"""

from __future__ import annotations

import json
import operator
from typing import Annotated, Any, Literal

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from pydantic import BaseModel, Field


class Deploy(BaseModel):
    """Where and how to deploy."""

    environment: Literal["staging", "production"]
    replicas: int = Field(description="How many replicas")
    notify: bool = False
    note: str | None = None


QUESTIONS: dict[str, Any] = {
    "string": "Which branch should I merge?",
    "options": {"question": "Which environment should I deploy to?", "options": ["staging", "production"]},
    "labelled": {"question": "How many?", "options": [{"label": "one", "value": 1}, {"label": "two", "value": 2}]},
    "schema": {"message": "Deployment details", "schema": Deploy.model_json_schema()},
    "model": Deploy(environment="staging", replicas=1),  # a class cannot be checkpointed; an instance prefills
    "json": [1, {"x": "y"}],
}


def _first_word(state: MessagesState) -> str:
    human = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    text = human[-1].content if human else ""
    return str(text).split(" ", 1)[0] if isinstance(text, str) else ""


def ask(state: MessagesState) -> dict[str, Any]:
    word = _first_word(state)
    if word not in QUESTIONS:
        return {"messages": [AIMessage(content=f"nothing to ask for {word!r}")]}
    answer = interrupt(QUESTIONS[word])
    return {"messages": [AIMessage(content="resumed with " + json.dumps(answer, sort_keys=True))]}


asker = StateGraph(MessagesState).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END).compile()


class ParallelState(MessagesState):
    answers: Annotated[list[str], operator.add]


def ask_branch(state: ParallelState) -> dict[str, Any]:
    return {"answers": ["branch=" + str(interrupt("Which branch?"))]}


def ask_reviewer(state: ParallelState) -> dict[str, Any]:
    return {"answers": ["reviewer=" + str(interrupt({"question": "Who reviews?", "options": ["ann", "bob"]}))]}


def report(state: ParallelState) -> dict[str, Any]:
    return {"messages": [AIMessage(content="resumed with " + ", ".join(sorted(state["answers"])))]}


parallel = (
    StateGraph(ParallelState)
    .add_node("branch", ask_branch)
    .add_node("reviewer", ask_reviewer)
    .add_node("report", report)
    .add_edge(START, "branch")
    .add_edge(START, "reviewer")
    .add_edge(["branch", "reviewer"], "report")
    .add_edge("report", END)
    .compile()
)
