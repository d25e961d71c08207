"""langacp-client-tools: file and command tools that go through the editor, or run locally, confined.

Installing the package gives every per-session agent ``read_file``, ``write_file``,
``edit_file`` and ``run_command``. Library use::

    from langacp_client_tools.tools import make_client_tools
    tools = make_client_tools(setup.session)

Importing this package is cheap (no ACP or LangChain import).
"""

from __future__ import annotations

from langacp_client_tools.settings import Settings

__all__ = ["Settings"]
