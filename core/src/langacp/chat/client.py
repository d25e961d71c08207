"""What ``langacp chat`` plugs into :class:`~langacp.client.AcpConnection`: a handler that renders
every update and permission request, and a permission policy that asks the user (or answers
``--yes`` / ``--no``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from langacp.client.policy import PermissionPolicy, PermissionRecord, PermissionRequest

if TYPE_CHECKING:
    from acp.schema import ClientCapabilities, PermissionOption

    from langacp.chat.render import Renderer

__all__ = ["AnswerPolicy", "Ask", "ChatHandler", "chat_policy"]

AnswerPolicy = Literal["ask", "yes", "no"]
Ask = Callable[[list["PermissionOption"]], Awaitable["PermissionOption | None"]]
"""Asks the user to choose among the offered options (``None``: cancelled)."""


class ChatHandler:
    """Renders updates and permission requests; serves no fs or terminal (the agent does its own)."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer
        self.how = ""
        """Why the last permission was answered as it was (``--yes``, …), shown with the answer."""
        self._requests: dict[str, PermissionRequest] = {}
        self.on_stdout_closed: Callable[[], None] | None = None
        """Called when stdout is closed under us (``langacp chat … | head -1``)."""
        self.commands: dict[str, str] = {}
        """The agent's slash commands (name → description), as it last advertised them."""
        self._prompting: set[str] = set()
        """Sessions whose prompt, sent from here, runs: the user typed it, it is not shown again."""

    @property
    def client_capabilities(self) -> ClientCapabilities:
        from acp.schema import ClientCapabilities

        return ClientCapabilities()

    def on_prompt(self, session_id: str, prompt: list[Any]) -> None:
        self._prompting.add(session_id)

    def on_prompt_end(self, session_id: str, stop_reason: str) -> None:
        self._prompting.discard(session_id)

    def on_update(self, session_id: str, update: Any) -> None:
        if update.session_update == "available_commands_update":
            self.commands = {c.name: c.description or "" for c in update.available_commands}
        elif update.session_update == "user_message_chunk" and session_id in self._prompting:
            return  # ACP v2 echoes the prompt it inserted (v1 does not): it is on the screen already
        try:
            self.renderer.update(session_id, update)
        except BrokenPipeError:
            if self.on_stdout_closed is None:
                raise
            self.on_stdout_closed()

    def on_permission_request(self, request: PermissionRequest) -> None:
        self._requests[request.tool_call.tool_call_id] = request
        if request.title and request.title != request.tool_call.title:  # ACP v2 asks in its own words
            self.renderer.info(request.title)
        self.renderer.permission(request.tool_call, request.options)

    def on_permission_result(self, record: PermissionRecord) -> None:
        request = self._requests.pop(record.tool_call_id, None)
        if request is None:
            return
        option = next((o for o in request.options if o.option_id == record.option_id), None)
        self.renderer.permission_answer(request.tool_call, option, self.how)


def chat_policy(answer: AnswerPolicy, handler: ChatHandler, ask: Ask | None) -> PermissionPolicy:
    """``yes`` / ``no`` pick an allow / reject option; ``ask`` asks (or rejects, saying so, with no one to ask)."""

    async def decide(request: PermissionRequest) -> str | None:
        if answer == "yes":
            handler.how = "--yes"
            return "allow"
        if answer == "no":
            handler.how = "--no"
            return "reject"
        if ask is None:
            handler.how = "no terminal to ask: pass --yes or --no"
            return "reject"
        handler.how = ""
        option = await ask(request.options)
        return option.option_id if option is not None else None

    return PermissionPolicy(ask_else=decide)
