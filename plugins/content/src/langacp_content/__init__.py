"""langacp-content: ACP content blocks ↔ LangChain standard content blocks.

Library use: :func:`~langacp_content.convert.to_langchain` and
:func:`~langacp_content.convert.to_acp` convert one block each way without losing what the
protocol carries; :func:`~langacp_content.convert.for_model` turns a converted prompt block
into one every chat model accepts. Importing this package is cheap (no ACP import).
"""

from __future__ import annotations

__all__: list[str] = []
