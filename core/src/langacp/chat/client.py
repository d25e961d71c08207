"""The ACP client object of ``langacp chat``: renders updates, answers permission requests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

    from langacp.chat.render import Renderer

__all__ = ["AnswerPolicy", "Ask", "ChatClient", "pick_option"]

AnswerPolicy = Literal["ask", "yes", "no"]
Ask = Callable[[list["PermissionOption"]], Awaitable["PermissionOption | None"]]
"""Asks the user to choose among the offered options (``None``: cancelled)."""

ALLOW_KINDS = ("allow_once", "allow_always")
REJECT_KINDS = ("reject_once", "reject_always")


def pick_option(options: list[PermissionOption], kinds: tuple[str, ...]) -> PermissionOption | None:
    """The first offered option of the first kind in ``kinds`` that the agent offered."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return option
    return None


class ChatClient:
    """Shows every ``session/update``; answers ``session/request_permission`` by ``policy``.

    ``policy`` ``"yes"`` / ``"no"`` picks an allow / reject option the agent offered; ``"ask"``
    calls ``ask`` (or rejects, saying so, when there is no one to ask).
    """

    def __init__(self, renderer: Renderer, policy: AnswerPolicy = "ask", ask: Ask | None = None) -> None:
        self.renderer = renderer
        self.policy = policy
        self.ask = ask

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.renderer.update(session_id, update)

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **_: Any
    ) -> RequestPermissionResponse:
        self.renderer.permission(tool_call, options)
        how = ""
        if self.policy == "yes":
            option, how = pick_option(options, ALLOW_KINDS), "--yes"
        elif self.policy == "no":
            option, how = pick_option(options, REJECT_KINDS), "--no"
        elif self.ask is not None:
            option = await self.ask(options)
        else:
            option, how = pick_option(options, REJECT_KINDS), "no terminal to ask: pass --yes or --no"
        self.renderer.permission_answer(tool_call, option, how)
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        if option is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option.option_id))
