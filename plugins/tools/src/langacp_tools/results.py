"""What a finished tool call shows: a terminal, the diff of the file it edited, or its text and images."""

from __future__ import annotations

import json
from typing import Any

from langacp.api import SessionContext, ToolCallInfo, tool_text_content
from langacp_tools.diffs import Before, read_text, roots_of, state

__all__ = ["artifact_diff", "content_blocks", "result_content", "shows_own_content", "terminal_id"]

_TERMINAL_KEYS = ("terminal_id", "terminalId")


def terminal_id(result: Any) -> str | None:
    """The client terminal a result points at: ``artifact`` (or ``additional_kwargs``) ``terminal_id``."""
    for holder in (getattr(result, "artifact", None), getattr(result, "additional_kwargs", None)):
        if holder is None or (type(holder) is dict and not holder):  # nothing to look through (the common case)
            continue
        for key in _TERMINAL_KEYS:
            value = holder.get(key) if isinstance(holder, dict) else getattr(holder, key, None)
            if isinstance(value, str) and value:
                return value
    return None


def artifact_diff(result: Any) -> list[Any]:
    """The diff a tool reports itself: ``artifact`` ``{"diff": {"path", "old_text", "new_text"}}``.

    For tools that know the text better than the disk does (an editor's unsaved buffer).
    """
    from acp import tool_diff_content

    artifact = getattr(result, "artifact", None)
    diff = artifact.get("diff") if isinstance(artifact, dict) else None
    if not isinstance(diff, dict) or getattr(result, "status", None) == "error":
        return []
    path, old, new = diff.get("path"), diff.get("old_text"), diff.get("new_text")
    if not isinstance(path, str) or not isinstance(new, str) or not (old is None or isinstance(old, str)):
        return []
    return [tool_diff_content(path, new, old)] if new != old else []


def shows_own_content(result: Any) -> bool:
    """Whether an edit's ``result`` is shown without reading its file: an error, a terminal or a diff of its own."""
    return getattr(result, "status", None) == "error" or terminal_id(result) is not None or bool(artifact_diff(result))


def _diff(before: Before | None, after: str | None, read: bool, result: Any, session: SessionContext) -> list[Any]:
    """The diff of ``before`` against the file's text after the run: ``after`` if it was ``read``
    (off the event loop, by the ``langacp_tool_finished`` hook), else read now (a graph without the
    tool guard, where no hook runs after a tool: on the event loop)."""
    from acp import tool_diff_content

    if before is None or getattr(result, "status", None) == "error":
        return []
    path, old = before
    if read:
        new = after
    else:
        try:
            new = read_text(path, roots_of(session))
        except Exception:  # noqa: BLE001 - unreadable after the edit: show the text instead
            return []
    if new is None or new == old:
        return []
    return [tool_diff_content(path, new, old)]


def _data(block: dict[str, Any]) -> tuple[str | None, str | None]:
    """(base64 data, MIME type) of a data block, from ``base64`` or a ``data:`` URL."""
    if isinstance(block.get("base64"), str):
        return block["base64"], block.get("mime_type")
    url = block.get("url")
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        return data, block.get("mime_type") or head or None
    return None, None


def content_blocks(result: Any) -> list[Any]:
    """The result's text, image and audio blocks as ACP tool-call content."""
    content = getattr(result, "content", result)
    if isinstance(content, str):  # the common case: one text
        return [tool_text_content(content)] if content else []
    from acp import text_block, tool_content

    raw_blocks = getattr(result, "content_blocks", None)
    blocks = raw_blocks if isinstance(raw_blocks, list) else content if isinstance(content, list) else [content]
    out: list[Any] = []
    texts: list[str] = []  # consecutive text parts become one text block
    for block in blocks:
        made = _media_or_link(block) if isinstance(block, dict) else None
        if made is None:
            texts.append(_text_of(block))
            continue
        if texts:
            out.append(tool_content(text_block("".join(texts))))
            texts.clear()
        out.append(tool_content(made))
    if texts:
        out.append(tool_content(text_block("".join(texts))))
    return out


def _text_of(block: Any) -> str:
    """A block shown as text: a text block's text, a string, anything else as JSON."""
    if isinstance(block, dict) and block.get("type") == "text":
        return str(block.get("text") or "")
    return block if isinstance(block, str) else json.dumps(block, default=str)


def _media_or_link(block: dict[str, Any]) -> Any | None:
    """An image or audio block with its data, or a link for a block with a URL; ``None`` for text."""
    from acp import audio_block, image_block, resource_link_block

    kind = block.get("type")
    if kind == "text":
        return None
    data, data_mime = _data(block)
    if kind in ("image", "audio") and data is not None:
        mime = str(data_mime or ("image/png" if kind == "image" else "audio/wav"))
        return image_block(data, mime) if kind == "image" else audio_block(data, mime)
    url = block.get("url")
    if isinstance(url, str):
        return resource_link_block(url.rsplit("/", 1)[-1] or url, url, mime_type=block.get("mime_type"))
    return None


def result_content(call: ToolCallInfo, kind: str, result: Any, session: SessionContext) -> list[Any]:
    """Tool-call content for ``result``, the ``ToolMessage`` of ``call``."""
    mine = state(session)
    before: Before | None = mine.before.pop(call.tool_call_id, None) if mine.has_before else None
    read = mine.has_after and call.tool_call_id in mine.after
    after = mine.after.pop(call.tool_call_id, None) if read else None
    terminal = terminal_id(result)
    if terminal is not None:
        from acp import tool_terminal_ref

        return [tool_terminal_ref(terminal)]
    if kind == "edit":
        diff = artifact_diff(result) or _diff(before, after, read, result, session)
        if diff:
            return diff
    return content_blocks(result)
