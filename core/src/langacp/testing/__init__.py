"""Test helpers for langacp and for plugin authors.

* :mod:`langacp.testing.model`: ``ScriptedChatModel``, a chat model you script (streams text,
  reasoning and tool calls; supports ``bind_tools``).
* :mod:`langacp.testing.agent`: a ready agent on that model, ``langacp.testing.agent:agent``.
* :mod:`langacp.testing.harness`: ``serve(...)``, the agent as a subprocess over real pipes, and
  ``serve_in_process(...)``, the same agent in the test's event loop (fast, same interface).
* :mod:`langacp.testing.calls`: what a client saw of each tool call (``tool_calls``, ``only_call``).
* :mod:`langacp.testing.polling`: wait for a process to go, a file to be written, a condition.
* :mod:`langacp.testing.turns`: ``in_turn(session, work)``, code run as in a session's turn (for a
  tool made once that finds its session with ``langacp.api.current_session()``).
* :mod:`langacp.testing.editor`: ``EditorClient``, a test client that reads and writes files and
  runs terminals for real, like an editor (or declares none of it).
* :mod:`langacp.testing.handlers`: ``CollectingHandler``, a :class:`langacp.client.AcpConnection`
  handler that keeps every update and permission request (no fs or terminal: ACP v2 is asked for).

Import the submodules: this package itself imports nothing heavy.
"""
