"""``langacp chat``: a terminal ACP client on the SDK's client side.

It spawns an agent (default: ``langacp serve``, the default agent), streams its answers,
thoughts, tool calls, plans, mode changes and usage with rich, and asks the user to answer
permission requests. :mod:`~langacp.chat.launch` checks its command line, :mod:`~langacp.chat.app`
runs it, :mod:`~langacp.chat.client` is the ACP client object, :mod:`~langacp.chat.render` prints,
:mod:`~langacp.chat.prompt` and :mod:`~langacp.chat.lines` read what the user types,
:mod:`~langacp.chat.commands` holds the chat's own slash commands.
"""

from __future__ import annotations

__all__: list[str] = []
