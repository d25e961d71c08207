"""The LangGraph run → ACP ``session/update`` bridge, a module per job.

- :mod:`~langacp.bridge.outbox`: a session's updates in order, sent by a background task, paced;
- :mod:`~langacp.bridge.tool_ids`: tool call ids unique across a session's turns (live and replayed);
- :mod:`~langacp.bridge.content`: a message's content as updates (live and replayed);
- :mod:`~langacp.bridge.turn`: the turn state machine (model output, each tool call's stages);
- :mod:`~langacp.bridge.stream`: running a graph's stream for a turn, interrupts included;
- :mod:`~langacp.bridge.tool_starts`: the callback handler reporting a tool of the graph starting;
- :mod:`~langacp.bridge.subagents`: a sub-agent's work as a child session (ACP's unstable subagents);
- :mod:`~langacp.bridge.repair`: a thread cut short (cancel, error) made fit for the next turn.

:mod:`langacp.replay` (``session/load``) builds on the first three.
"""
