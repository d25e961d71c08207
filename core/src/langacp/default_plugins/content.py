"""Default content mapping: text and resource links in; text and reasoning out.

Text and resource links are what every ACP agent must accept; embedded text resources are
cheap to support, so the core does. Images, audio and the rest come with ``langacp-content``.
"""

from __future__ import annotations

from typing import Any

from langacp.hookspecs import hookimpl
from langacp.types import SessionContext


@hookimpl(trylast=True)
def langacp_prompt_block(block: Any, session: SessionContext) -> list[dict[str, Any]] | None:
    kind = getattr(block, "type", None)
    if kind == "text":
        return [{"type": "text", "text": block.text}]
    if kind == "resource_link":
        label = block.title or block.name or block.uri
        return [{"type": "text", "text": f"[{label}]({block.uri})"}]
    if kind == "resource":
        text = getattr(block.resource, "text", None)
        if isinstance(text, str):
            return [{"type": "text", "text": f'<context uri="{block.resource.uri}">\n{text}\n</context>'}]
    return None


@hookimpl(trylast=True)
def langacp_output_block(block: dict[str, Any], session: SessionContext) -> list[Any]:
    from langacp.text_models import agent_text_chunk

    kind = block.get("type")
    if kind == "text":
        text = block.get("text") or ""
        return [agent_text_chunk(text)] if text else []
    if kind == "reasoning":
        text = block.get("reasoning") or ""
        return [agent_text_chunk(text, thought=True)] if text else []
    return []
