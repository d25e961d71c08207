"""MCP tool results as ACP tool-call content.

ACP's content blocks were modelled on MCP's, so each MCP block has an exact ACP twin: text,
image, audio, resource link, embedded resource. The editor is shown those, not the
LangChain blocks the model reads (which flatten resources to text and cannot carry audio).
"""

from __future__ import annotations

from typing import Any

from acp import (
    audio_block,
    embedded_blob_resource,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
    tool_content,
)
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

__all__ = ["acp_block", "acp_tool_content", "for_the_model"]


def acp_block(block: Any) -> Any:
    """One MCP content block as an ACP content block (text for anything unknown)."""
    if isinstance(block, TextContent):
        return text_block(block.text)
    if isinstance(block, ImageContent):
        return image_block(block.data, block.mimeType)
    if isinstance(block, AudioContent):
        return audio_block(block.data, block.mimeType)
    if isinstance(block, ResourceLink):
        return resource_link_block(
            block.name,
            str(block.uri),
            mime_type=block.mimeType,
            size=block.size,
            description=block.description,
            title=block.title,
        )
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        if isinstance(resource, TextResourceContents):
            return resource_block(embedded_text_resource(str(resource.uri), resource.text, mime_type=resource.mimeType))
        if isinstance(resource, BlobResourceContents):
            return resource_block(embedded_blob_resource(str(resource.uri), resource.blob, mime_type=resource.mimeType))
    return text_block(str(block))


def acp_tool_content(result: CallToolResult) -> list[Any]:
    """The ACP tool-call content of an MCP tool result (its structured content if it has no blocks)."""
    blocks = [tool_content(acp_block(block)) for block in result.content]
    if not blocks and result.structuredContent is not None:
        import json

        blocks.append(tool_content(text_block(json.dumps(result.structuredContent, ensure_ascii=False))))
    return blocks


def for_the_model(result: CallToolResult) -> CallToolResult:
    """The result with what langchain-mcp-adapters cannot convert (audio) replaced by a note."""
    if not any(isinstance(block, AudioContent) for block in result.content):
        return result
    content = [
        TextContent(type="text", text=f"[audio ({block.mimeType}) shown to the user]")
        if isinstance(block, AudioContent)
        else block
        for block in result.content
    ]
    return result.model_copy(update={"content": content})
