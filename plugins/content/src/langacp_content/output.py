"""LangChain output blocks → ACP session updates: answers, thoughts, media, files, refusals, the unknown."""

from __future__ import annotations

import logging
from typing import Any

from langacp.api import SessionContext, agent_text_chunk
from langacp_content.convert import to_acp

__all__ = ["output_updates", "refusal_text"]

log = logging.getLogger("langacp_content")

_warned: set[str] = set()


def refusal_text(block: dict[str, Any]) -> str | None:
    """The text of a refusal block (``refusal``, or ``non_standard`` wrapping one), else ``None``."""
    value = block.get("value") if block.get("type") == "non_standard" else block
    if not isinstance(value, dict) or value.get("type") != "refusal":
        return None
    text = value.get("refusal") or value.get("text") or "The model refused to answer."
    return str(text)


def _citation_links(block: dict[str, Any]) -> list[Any]:
    """LangChain citations on a text block, as ACP resource links (one per distinct URL)."""
    from acp import resource_link_block, update_agent_message

    links: list[Any] = []
    seen: set[str] = set()
    for note in block.get("annotations") or []:
        url = note.get("url") if isinstance(note, dict) and note.get("type") == "citation" else None
        if isinstance(url, str) and url and url not in seen:
            seen.add(url)
            links.append(update_agent_message(resource_link_block(str(note.get("title") or url), url)))
    return links


def _unknown(block: dict[str, Any]) -> list[Any]:
    from acp import text_block, update_agent_message

    kind = str(block.get("type"))
    if kind == "non_standard" and isinstance(block.get("value"), dict):
        kind = str(block["value"].get("type"))  # LangChain wraps types it does not know
    if kind not in _warned:
        _warned.add(kind)
        log.warning("no ACP mapping for a %r content block; it is shown as text", kind)
    raw_value = block.get("value")
    value: dict[str, Any] = raw_value if isinstance(raw_value, dict) else block
    text = value.get("text") if isinstance(value.get("text"), str) else f"[{kind} content not shown]"
    return [update_agent_message(text_block(text))] if text else []


_PLAIN = frozenset({"type", "text", "reasoning", "id", "index"})
"""Keys of a text or reasoning block that holds nothing but its text."""


def output_updates(block: dict[str, Any], session: SessionContext) -> list[Any]:
    """The updates that show ``block``, a content block of the model's answer."""
    kind = block.get("type")
    if kind in ("text", "reasoning") and block.keys() <= _PLAIN:  # nothing but its text
        text = block.get(kind)
        if isinstance(text, str):
            if not text:
                return []
            return [agent_text_chunk(text, thought=kind == "reasoning")]
    from acp import update_agent_message, update_agent_thought

    refusal = refusal_text(block)
    if refusal is not None:
        from acp import text_block

        return [update_agent_message(text_block(refusal))]
    if kind in ("text", "reasoning"):
        key = "text" if kind == "text" else "reasoning"
        if not block.get(key):
            return []
        mapped = to_acp(block)
        if mapped is None:
            return _unknown(block)
        if kind == "reasoning":
            return [update_agent_thought(mapped)]
        return [update_agent_message(mapped), *_citation_links(block)]
    try:
        mapped = to_acp(block)
    except ValueError:  # a malformed block (pydantic): shown as text, never a crash
        mapped = None
    return [update_agent_message(mapped)] if mapped is not None else _unknown(block)
