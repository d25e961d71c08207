"""Questions for the user: one mapped from an interrupt, and the answer :meth:`SessionContext.elicit` gets.

Under :mod:`langacp.types` (which re-exports every name); it imports only :mod:`langacp.forms`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ElicitAction", "ElicitResult", "ElicitationRefused", "Question"]

ElicitAction = Literal["accept", "decline", "cancel", "unavailable"]
"""How a question ended: answered, declined, cancelled by the user, or it could not be asked."""


@dataclass(frozen=True)
class ElicitResult:
    """The user's answer to :meth:`SessionContext.elicit`.

    ``action`` is ``"accept"`` (``content`` holds the answer, checked against the schema that was
    sent), ``"decline"``, ``"cancel"``, or ``"unavailable"``: the question was not asked, and
    ``reason`` says why (the client did not advertise forms, no turn of the session is running).
    """

    action: ElicitAction
    content: dict[str, Any] | None = None
    reason: str | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


class ElicitationRefused(ValueError):
    """The client's answer does not match the question's schema (extra or wrong-typed fields): none of it is used."""


@dataclass(frozen=True)
class Question:
    """One question for the user, mapped from an interrupt's value (``langacp_interrupt_question``).

    ``schema`` is a form in ACP's restricted schema (a flat object of string / number / integer /
    boolean / enum / multi-select fields). ``resume`` turns the checked answer (the form's
    content) into the value the graph resumes with.
    """

    message: str
    schema: dict[str, Any]
    resume: Callable[[dict[str, Any]], Any]

    def fields(self) -> dict[str, dict[str, Any]]:
        properties = self.schema.get("properties")
        return dict(properties) if isinstance(properties, dict) else {}

    def text(self) -> str:
        """The question as a message, for a client that cannot show forms: the message, the options of
        a one-field question numbered, and how to answer with a next prompt."""
        from langacp.forms import form_options

        fields = self.fields()
        lines = [self.message.strip()]
        if len(fields) == 1:
            options = form_options(next(iter(fields.values())))
            lines += [f"{n}. {option}" for n, option in enumerate(options, 1)]
            lines.append("Reply with your answer" + (" (the option or its number)." if options else "."))
        elif fields:
            names = ", ".join(f"{name} ({prop.get('type')})" for name, prop in fields.items())
            lines.append(f"Reply with a JSON object of: {names}.")
        return "\n".join(lines)
