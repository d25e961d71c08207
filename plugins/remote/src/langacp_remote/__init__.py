"""langacp-remote: serve agents that run on a LangGraph Server over ACP.

``langacp serve --remote URL GRAPH`` serves the assistant (or graph) GRAPH of the server at
URL: an ACP session is a server thread, a prompt is a run. Graphs on the server may include
:func:`langacp_remote.editor.editor_tools` so that the editor's files and terminals are reached
through the local ``langacp`` process. Importing this package is cheap.
"""

from __future__ import annotations

__all__: list[str] = []
