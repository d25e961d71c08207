"""Session titles for langacp."""

from __future__ import annotations

from langacp_titles.text import MAX_LENGTH, clean_title, title_from_prompt
from langacp_titles.titles import set_title

__all__ = ["MAX_LENGTH", "clean_title", "set_title", "title_from_prompt"]
