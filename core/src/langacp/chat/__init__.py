"""``langacp chat``: a terminal ACP client on the SDK's client side.

It spawns an agent (default: ``langacp serve``, the default agent), streams its answers,
thoughts, tool calls, plans, mode changes and usage with rich, and asks the user to answer
permission requests. :mod:`~langacp.chat.app` runs it, :mod:`~langacp.chat.client` is the ACP
client object, :mod:`~langacp.chat.render` prints.
"""

from __future__ import annotations

__all__: list[str] = []
