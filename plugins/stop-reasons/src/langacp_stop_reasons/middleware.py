"""The per-prompt model-call limit, and forgetting a refused prompt, as LangChain middleware.

The count lives in the session (``session.state["stop_reasons"]``), reset when a prompt
starts: permission round trips and human-in-the-loop resumes within one prompt do not reset
it (LangChain's own ``run_limit`` counters restart on every resume).
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage

from langacp import SessionContext
from langacp_stop_reasons.reasons import STATE_KEY, is_refusal

__all__ = ["TurnLimits"]


class TurnLimits(AgentMiddleware):  # type: ignore[type-arg]
    """Ends the turn cleanly once a prompt has made ``max_model_calls`` model calls (0: no limit).

    With ``forget_refusals``, a refused prompt and everything after it leaves the thread, as
    ACP's ``refusal`` stop reason promises the client.
    """

    def __init__(self, session: SessionContext, max_model_calls: int, *, forget_refusals: bool = True) -> None:
        super().__init__()
        self.session = session
        self.max_model_calls = max_model_calls
        self.forget_refusals = forget_refusals

    @property
    def name(self) -> str:
        return "langacp_stop_reasons"

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        turn = self.session.state.setdefault(STATE_KEY, {})
        calls = int(turn.get("model_calls", 0))
        if self.max_model_calls and calls >= self.max_model_calls:
            turn["limit_hit"] = True
            text = (
                f"Stopped: this prompt reached the limit of {self.max_model_calls} model calls "
                "([stop_reasons] max_model_calls). Send another prompt to continue."
            )
            return {"jump_to": "end", "messages": [AIMessage(content=text)]}
        turn["model_calls"] = calls + 1
        return None

    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        messages = state.get("messages") or []
        if not (self.forget_refusals and messages and is_refusal(messages[-1])):
            return None
        start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
        if start is None:
            return None
        self.session.state.setdefault(STATE_KEY, {})["refused"] = True
        return {"messages": [RemoveMessage(id=m.id) for m in messages[start:] if m.id]}
