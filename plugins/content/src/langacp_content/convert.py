"""One content block each way: ACP ↔ LangChain standard content blocks, losing nothing ACP carries.

========================  =============================================================
ACP block                 LangChain block
========================  =============================================================
text                      ``text``
image                     ``image`` (``base64``, ``mime_type``; the ACP ``uri`` in extras)
audio                     ``audio`` (``base64``, ``mime_type``)
resource, text            ``text-plain`` (``text``; ``uri`` and the real MIME type in extras)
resource, blob            ``file`` (``base64``, ``mime_type``; ``uri`` in extras)
resource_link             ``file`` (``url``; ``name``, ``title``, ``description``, ``size``
                          in extras)
========================  =============================================================

ACP ``annotations`` and ``_meta`` travel in ``extras`` too. :func:`for_model` then lowers a
converted prompt block to what every chat model accepts (providers pass a text block's keys
through verbatim, and few read ``text-plain`` or file URLs).
"""

from __future__ import annotations

import posixpath
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    Annotations,
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

__all__ = ["AcpBlock", "for_model", "to_acp", "to_langchain"]

AcpBlock = (
    TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock
)
"""Any ACP content block."""

_LINK_FIELDS = ("name", "title", "description", "size")


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


def _extras(block: Any, **more: Any) -> dict[str, Any]:
    extras = {k: v for k, v in more.items() if v is not None}
    if block.annotations is not None:
        extras["annotations"] = _dump(block.annotations)
    if block.field_meta is not None:
        extras["_meta"] = block.field_meta
    return extras


def _with_extras(lc: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    if extras:
        lc["extras"] = extras
    return lc


def to_langchain(block: AcpBlock) -> dict[str, Any]:
    """The LangChain standard content block for an ACP block (see the module's table)."""
    if isinstance(block, TextContentBlock):
        return _with_extras({"type": "text", "text": block.text}, _extras(block))
    if isinstance(block, (ImageContentBlock, AudioContentBlock)):
        uri = block.uri if isinstance(block, ImageContentBlock) else None
        lc = {"type": block.type, "base64": block.data, "mime_type": block.mime_type}
        return _with_extras(lc, _extras(block, uri=uri))
    if isinstance(block, ResourceContentBlock):
        lc = {"type": "file", "url": block.uri}
        if block.mime_type is not None:
            lc["mime_type"] = block.mime_type
        return _with_extras(lc, _extras(block, **{k: getattr(block, k) for k in _LINK_FIELDS}))
    resource = block.resource
    more: dict[str, Any] = {"uri": resource.uri, "resource_meta": resource.field_meta}
    if isinstance(resource, TextResourceContents):
        lc = {"type": "text-plain", "text": resource.text, "mime_type": "text/plain"}
        more["mime_type"] = resource.mime_type
        return _with_extras(lc, _extras(block, **more))
    lc = {"type": "file", "base64": resource.blob}
    if resource.mime_type is not None:
        lc["mime_type"] = resource.mime_type
    more["filename"] = _filename(resource.uri)
    return _with_extras(lc, _extras(block, **more))


def _filename(uri: str) -> str | None:
    name = posixpath.basename(unquote(urlparse(uri).path))
    return name or None


def _annotations(extras: dict[str, Any]) -> Annotations | None:
    value = extras.get("annotations")
    return Annotations.model_validate(value) if isinstance(value, dict) else None


def _meta(extras: dict[str, Any], key: str = "_meta") -> dict[str, Any] | None:
    value = extras.get(key)
    return value if isinstance(value, dict) else None


def _data_url(url: str) -> tuple[str, str] | None:
    """(mime type, base64 data) of a ``data:…;base64,`` URL."""
    if not url.startswith("data:") or ";base64," not in url:
        return None
    head, data = url[5:].split(";base64,", 1)
    return head or "application/octet-stream", data


def _uri(extras: dict[str, Any], fallback: str) -> str:
    uri = extras.get("uri")
    return uri if isinstance(uri, str) else fallback


def to_acp(block: dict[str, Any]) -> AcpBlock | None:
    """The ACP block for a LangChain content block; ``None`` for a type ACP cannot show."""
    kind = block.get("type")
    raw_extras = block.get("extras")
    extras: dict[str, Any] = raw_extras if isinstance(raw_extras, dict) else {}
    common: dict[str, Any] = {"annotations": _annotations(extras), "field_meta": _meta(extras)}
    mime = _str(block.get("mime_type"))
    if kind == "text" and isinstance(block.get("text"), str):
        return TextContentBlock(type="text", text=block["text"], **common)
    if kind == "reasoning":
        return TextContentBlock(type="text", text=str(block.get("reasoning") or ""), **common)
    if kind == "text-plain" and isinstance(block.get("text"), str):
        return _text_resource(block, extras, mime, common)
    data, url = _str(block.get("base64")), _str(block.get("url"))
    if data is None and url is not None and (parsed := _data_url(url)) is not None:
        mime, data = mime or parsed[0], parsed[1]
        url = None
    if kind in ("image", "audio") and data is not None:
        return _media(kind, data, mime, extras, common)
    if kind in ("image", "audio", "video", "file", "text-plain"):
        return _attachment(str(kind), block, data, url, mime, extras, common)
    return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _text_resource(
    block: dict[str, Any], extras: dict[str, Any], mime: str | None, common: dict[str, Any]
) -> EmbeddedResourceContentBlock:
    """A ``text-plain`` block: an embedded text resource."""
    real_mime = extras.get("mime_type") if "uri" in extras else mime  # from ACP: its own MIME type
    uri = _uri(extras, block.get("url") or f"attachment:{block.get('title') or 'text'}")
    resource = TextResourceContents(
        uri=uri, text=block["text"], mime_type=real_mime, field_meta=_meta(extras, "resource_meta")
    )
    return EmbeddedResourceContentBlock(type="resource", resource=resource, **common)


def _media(
    kind: str, data: str, mime: str | None, extras: dict[str, Any], common: dict[str, Any]
) -> ImageContentBlock | AudioContentBlock:
    """An inline image or audio block."""
    if kind == "image":
        uri = _str(extras.get("uri"))
        return ImageContentBlock(type="image", data=data, mime_type=mime or "image/png", uri=uri, **common)
    return AudioContentBlock(type="audio", data=data, mime_type=mime or "audio/wav", **common)


def _attachment(
    kind: str,
    block: dict[str, Any],
    data: str | None,
    url: str | None,
    mime: str | None,
    extras: dict[str, Any],
    common: dict[str, Any],
) -> AcpBlock | None:
    """A file of any kind: embedded (its data), linked (its URL) or named (a provider's file id)."""
    if data is not None:
        name = extras.get("filename") or block.get("filename") or kind
        resource_blob = BlobResourceContents(
            uri=_uri(extras, f"attachment:{name}"),
            blob=data,
            mime_type=mime,
            field_meta=_meta(extras, "resource_meta"),
        )
        return EmbeddedResourceContentBlock(type="resource", resource=resource_blob, **common)
    if url is not None:
        link = {k: extras.get(k) for k in _LINK_FIELDS}
        name = link.pop("name")
        return ResourceContentBlock(
            type="resource_link",
            uri=url,
            name=name if isinstance(name, str) else _filename(url) or url,
            mime_type=mime,
            **link,
            **common,
        )
    if isinstance(block.get("file_id"), str):
        return TextContentBlock(type="text", text=f"[{kind} {block['file_id']}]", **common)
    return None


def for_model(block: dict[str, Any]) -> dict[str, Any]:
    """A converted prompt block as every chat model takes it.

    Text blocks carry only ``type`` and ``text``; an embedded text resource becomes text in a
    ``<context>`` element, a resource link becomes a Markdown link; a blob whose MIME type
    is an image or audio becomes that block. Data blocks keep their ``extras``: provider
    converters read only the keys they know.
    """
    kind = block.get("type")
    extras: dict[str, Any] = block.get("extras") or {}
    if kind == "text":
        return {"type": "text", "text": block["text"]}
    if kind == "text-plain":
        uri = str(extras.get("uri") or block.get("url") or "").replace('"', "%22")
        return {"type": "text", "text": f'<context uri="{uri}">\n{block.get("text", "")}\n</context>'}
    if kind == "file" and "url" in block and "base64" not in block:
        label = extras.get("title") or extras.get("name") or block["url"]
        about = f": {extras['description']}" if extras.get("description") else ""
        return {"type": "text", "text": f"[{label}]({block['url']}){about}"}
    mime = str(block.get("mime_type") or "")
    if kind == "file" and mime.split("/")[0] in ("image", "audio") and "base64" in block:
        return {**block, "type": mime.split("/")[0]}
    return block
