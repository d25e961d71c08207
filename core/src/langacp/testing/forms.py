"""A test client that answers the agent's questions (ACP ``elicitation/create``) like an editor's form.

:class:`FormClient` is a :class:`~langacp.client.RecordingClient` that declares
``elicitation.form`` (and ``elicitation.url`` with ``url=True``) in ``initialize`` and answers
each question with ``answer(message, schema)``: the form's content (a dict: accepted), or
``"decline"`` / ``"cancel"``. Every question is recorded in ``questions``, so a test can also
prove that none was asked. A plain :class:`RecordingClient` declares no forms::

    client = FormClient(answer=lambda message, schema: {"answer": "staging"})
    async with serve("graph.py:graph", plugins=["elicitation"], client=client) as agent:
        ...
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from acp.schema import (
    AcceptElicitationResponse,
    CancelElicitationResponse,
    ClientCapabilities,
    DeclineElicitationResponse,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationUrlCapabilities,
)

from langacp.client.testing_client import RecordingClient

__all__ = ["FormAnswer", "FormClient", "Question"]

FormAnswer = Callable[[str, dict[str, Any]], "dict[str, Any] | str"]
"""Answers a form: ``(message, requested schema as JSON)`` → content, ``"decline"`` or ``"cancel"``."""


@dataclass
class Question:
    """One ``elicitation/create`` the client received."""

    session_id: str
    message: str
    mode: str
    """``"form"`` or ``"url"``."""
    schema: dict[str, Any] | None
    url: str | None


@dataclass
class FormClient(RecordingClient):
    """A recording client that shows forms: it declares ``elicitation.form`` and answers with ``answer``."""

    answer_form: FormAnswer | None = None
    """Answers each question; ``None`` declines every one."""
    url: bool = False
    """Declare ``elicitation.url`` too."""
    questions: list[Question] = field(default_factory=list)
    hold: asyncio.Event | None = None
    """When set: each question waits for this event before it is answered (to cancel while a form is open)."""

    @property
    def client_capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(
            elicitation=ElicitationCapabilities(
                form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities() if self.url else None
            )
        )

    async def create_elicitation(self, message: str, mode: Any, **_: Any) -> Any:
        schema = getattr(mode, "requested_schema", None)
        url = getattr(mode, "url", None)
        as_json = schema.model_dump(mode="json", by_alias=True, exclude_none=True) if schema is not None else None
        self.questions.append(
            Question(
                str(getattr(mode, "session_id", "")),
                message,
                "form" if schema is not None else "url",
                as_json,
                str(url) if url is not None else None,
            )
        )
        if self.hold is not None:
            await self.hold.wait()
        answer = self.answer_form(message, as_json or {}) if self.answer_form is not None else "decline"
        if answer == "decline":
            return DeclineElicitationResponse(action="decline")
        if answer == "cancel":
            return CancelElicitationResponse(action="cancel")
        return AcceptElicitationResponse(action="accept", content=answer)  # type: ignore[arg-type]
