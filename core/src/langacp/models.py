"""Chat models for your own agent: :func:`demo`, the offline demo model (no API key, no network).

``langacp.models.demo()`` is a real LangChain chat model (tools, streaming) with canned,
deterministic answers, for trying an agent of your own before it has a real model::

    from langacp.models import demo

    def agent(setup):
        return setup.create_agent(demo(), tools=[my_tool], system_prompt="…")

It calls any of the agent's tools when asked ``call TOOL {"arg": "value"}`` (or ``call TOOL``
for one without arguments) and answers ``list files``, ``read README.md``, ``search for TODO``,
``make a plan for …`` and ``count to 100`` when the agent has the tools they need. Swap it for
``init_chat_model("anthropic:claude-sonnet-4-5")`` (or any chat model) when you have a key.
"""

from __future__ import annotations

from typing import Any

__all__ = ["demo"]


def demo(*, delay: float | None = None) -> Any:
    """The offline demo model (a ``BaseChatModel``); ``delay``: seconds between streamed chunks."""
    from langacp.default_agent.demo_model import DemoChatModel

    return DemoChatModel() if delay is None else DemoChatModel(token_delay=delay)
