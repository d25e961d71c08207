"""ACP v2 (Preview) beside v1: one wire mapping over the same session core, turns and plugins.

- :mod:`.models`: typed models of the v2 shapes langacp speaks, checked against ``schema/v2/schema.json``;
- :mod:`.negotiation`: which version a connection speaks; v2's ``initialize`` response from v1's;
- :mod:`.routing`: each method to v1's route or v2's handler, by the negotiated version;
- :mod:`.wire`: one connection's v2 handlers (prompt, cancel, auth, per-tool-call cancel);
- :mod:`.sessions`: session/new, resume (with replay), list, close, delete, config options;
- :mod:`.turns`: the prompt lifecycle (acknowledged once inserted, ``state_update``);
- :mod:`.mapping`: the core's v1 updates in v2's shapes;
- :mod:`.client`: the client as the core sees it on a v2 connection (updates, permission requests);
- :mod:`.batches`: JSON-RPC batches (one array line of a batch's responses);
- :mod:`.background`: the background work (detached agent-owned terminals) state updates list.
"""
