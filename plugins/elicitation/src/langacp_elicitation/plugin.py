"""The hook implementations of langacp-elicitation (entry point ``elicitation`` in group ``langacp``).

Both are ``trylast``: ``HumanInTheLoopMiddleware`` interrupts stay with langacp-permissions (its
permission requests), and a third-party plugin's ``langacp_interrupt_question`` maps its own payloads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from langacp.api import Question, SessionContext, hookimpl
from langacp_elicitation.asking import answer_interrupts
from langacp_elicitation.mapping import is_permission_request, question_for


@hookimpl(trylast=True)
def langacp_resume_interrupt(
    session: SessionContext, interrupts: Sequence[Any], prompt: Sequence[Any] | None
) -> Awaitable[Any] | None:
    if not interrupts or any(is_permission_request(getattr(i, "value", None)) for i in interrupts):
        return None
    return answer_interrupts(session, interrupts, prompt)


@hookimpl(trylast=True)
def langacp_interrupt_question(value: Any, session: SessionContext) -> Question | None:
    if is_permission_request(value):
        return None
    return question_for(value)
