"""A message's content as ACP updates, shared by live turns and replays.

A message's content blocks (adjacent plain texts joined), and the updates showing a human
message: the user's (replayed) or one the agent harness added (LangChain's notification
metadata, e.g. ``SummarizationMiddleware``'s summary), which is the agent's thought.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_core.messages import HumanMessage

    from langacp.plugins import Plugins
    from langacp.types import SessionContext

__all__ = ["human_updates", "message_blocks", "notification_updates"]


def notification_updates(
    plugins: Plugins, session: SessionContext, message: HumanMessage, compaction_id: str | None = None
) -> list[Any]:
    """The updates showing a human message the harness added (a summary, a background task's news): the
    agent's thought, never the user's words. Live (:class:`~langacp.bridge.turn.TurnReporter`) and replayed alike.

    ``SummarizationMiddleware``'s summary, to a client that advertised ``session.compaction``, is a
    ``compaction_update`` ``completed`` with the summary instead (id ``compaction_id``, else the
    message's own id).
    """
    from acp import update_agent_thought
    from langchain_core.messages import get_notification_metadata

    from langacp.protocol import client_compaction, compaction_update

    thoughts = human_updates(plugins, session, message, update_agent_thought, others=True)
    metadata = get_notification_metadata(message)
    if metadata is None or metadata["source"] != "summarization" or not client_compaction(session.client_capabilities):
        return thoughts
    summary = [u.content for u in thoughts if getattr(u, "session_update", None) == "agent_thought_chunk"]
    others = [u for u in thoughts if getattr(u, "session_update", None) != "agent_thought_chunk"]
    identifier = compaction_id or message.id or f"compaction-{id(message)}"
    return [compaction_update(identifier, "completed", summary=summary), *others]


def human_updates(
    plugins: Plugins, session: SessionContext, message: HumanMessage, build: Callable[[Any], Any], *, others: bool
) -> list[Any]:
    """``message``'s blocks as ``build`` updates: text as is, other blocks as the output mappers show them
    (their ``agent_message_chunk`` content rebuilt; their other updates kept only with ``others``)."""
    from acp import text_block

    updates: list[Any] = []
    for block in message_blocks(message):
        text = block.get("text") if block.get("type") == "text" else None
        if isinstance(text, str):
            if text:
                updates.append(build(text_block(text)))
            continue
        for update in plugins.output_block(dict(block), session):
            if getattr(update, "session_update", None) == "agent_message_chunk":
                updates.append(build(update.content))
            elif others:
                updates.append(update)
    return updates


def message_blocks(message: Any) -> list[dict[str, Any]]:
    """The message's standard content blocks; plain text without computing them (the common case).

    Adjacent plain text (or reasoning) blocks of the message are joined into one: a client
    shows consecutive chunks of a message as one text, so one update carries them (a model
    answering in several text parts otherwise costs an update each). A block with anything
    more than its text (citations, extras) stays on its own, as when live updates are joined.
    """
    content = message.content
    if isinstance(content, str) and "reasoning_content" not in message.additional_kwargs:
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    run: list[str] = []  # the texts of the plain blocks joining blocks[-1]
    for raw in message.content_blocks:
        block = dict(raw)
        key = block.get("type")
        if run and key == blocks[-1]["type"] and _plain(block, key):
            run.append(block[key])
            continue
        if len(run) > 1:
            blocks[-1] = {**blocks[-1], blocks[-1]["type"]: "".join(run)}
        blocks.append(block)
        run = [block[key]] if key in ("text", "reasoning") and _plain(block, key) else []
    if len(run) > 1:
        blocks[-1] = {**blocks[-1], blocks[-1]["type"]: "".join(run)}
    return blocks


def _plain(block: dict[str, Any], key: str) -> bool:
    """A text (reasoning) block holding only its text (an ``id`` or ``index`` aside)."""
    return isinstance(block.get(key), str) and not set(block) - {"type", key, "index", "id"}
