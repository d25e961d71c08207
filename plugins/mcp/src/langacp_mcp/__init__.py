"""langacp-mcp: the MCP servers an editor hands over (and those you configure) become the agent's tools.

Installing the package is enough: langacp finds :mod:`langacp_mcp.plugin` through its entry
point in group ``langacp``. See ``docs/mcp.md``. Nothing heavy is imported here: plugins are
loaded before ``initialize`` is answered, the MCP SDK only when a session starts servers.
"""
