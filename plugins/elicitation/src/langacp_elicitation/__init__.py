"""Asking the user for langacp: a LangGraph ``interrupt(value)`` becomes an editor form (ACP
``elicitation/create``), or, for a client without forms, the agent's message that the next
prompt answers."""

from __future__ import annotations

from langacp_elicitation.mapping import question_for

__all__ = ["question_for"]
