"""Test helpers for langacp and for plugin authors.

* :mod:`langacp.testing.model`: ``ScriptedChatModel``, a chat model you script (streams text,
  reasoning and tool calls; supports ``bind_tools``).
* :mod:`langacp.testing.agent`: a ready agent on that model, ``langacp.testing.agent:agent``.
* :mod:`langacp.testing.harness`: ``serve(...)``, the agent as a subprocess over real pipes.
* :mod:`langacp.testing.editor`: ``EditorClient``, a test client that reads and writes files and
  runs terminals for real, like an editor (or declares none of it).

Import the submodules: this package itself imports nothing heavy.
"""
