"""A short, clean title from a prompt's text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["MAX_LENGTH", "clean_title", "title_from_prompt"]

MAX_LENGTH = 60

_FENCE = re.compile(r"```.*?(```|\Z)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_GREETING = re.compile(r"^(hi|hello|hey|yo)\b[\s,!.]*", re.IGNORECASE)
_REQUEST = re.compile(
    r"^(please\s+|pls\s+|(can|could|would|will)\s+you\s+(please\s+)?|i\s+(want|need|would like)\s+you\s+to\s+)",
    re.IGNORECASE,
)
_SPACE = re.compile(r"\s+")
_MARKUP = re.compile(r"\*\*|`")  # bold and code marks (single _ and * stay: names, globs)


def clean_title(text: str, max_length: int = MAX_LENGTH) -> str | None:
    """One line, no surrounding quotes or markdown, cut at a word to ``max_length`` characters."""
    title = _SPACE.sub(" ", _MARKUP.sub("", text)).strip().lstrip("#").strip().strip("\"'").strip()
    if len(title) > max_length:
        cut = title[: max_length - 1]
        space = cut.rfind(" ")
        title = (cut[:space] if space > max_length // 2 else cut).rstrip(" ,;:-") + "…"
    return title or None


def title_from_prompt(blocks: Sequence[Any], max_length: int = MAX_LENGTH) -> str | None:
    """A title for a session whose first prompt is ``blocks`` (ACP content blocks), or ``None``.

    The first sentence of the prompt's text, without code blocks, greetings or "can you
    please"; a prompt without text is named after the files it mentions.
    """
    text = "\n".join(b.text for b in blocks if getattr(b, "type", None) == "text" and isinstance(b.text, str))
    text = _FENCE.sub(" ", text)
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    sentence = _SENTENCE_END.split(line, maxsplit=1)[0].strip()
    sentence = _GREETING.sub("", sentence)
    request = _REQUEST.match(sentence)
    if request:
        sentence = sentence[request.end() :]
    sentence = sentence.rstrip(".!:;, ")
    if request:
        sentence = sentence.rstrip("?")  # "can you fix X?" is a request, not a question
    if sentence:
        return clean_title(sentence[0].upper() + sentence[1:], max_length)
    names = [str(getattr(b, "name", "") or getattr(b, "uri", "")) for b in blocks if getattr(b, "type", None)]
    names = [n.rsplit("/", 1)[-1] for n in names if n]
    return clean_title("About " + ", ".join(names), max_length) if names else None
