"""LangGraph's private names langacp uses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "DELTA_MARKERS",
    "INTERRUPT_KEY",
    "PUSH",
    "TASKS_CHANNEL",
    "drop_memory_checkpoints",
    "overwritten",
    "own_graph_task",
    "uses_delta",
]

PUSH = "__pregel_push"
"""The first item of a ``@task`` call's ``langgraph_path`` (``langgraph._internal._constants.PUSH``)."""

TASKS_CHANNEL = "__pregel_tasks"
"""The channel of pending ``Send`` s in a checkpoint's writes (``langgraph._internal._constants.TASKS``)."""

INTERRUPT_KEY = "__interrupt__"
"""The key of a run's pending interrupts in an ``updates`` stream item and in a graph's returned state."""

DELTA_MARKERS = ("counters_since_delta_snapshot", "delta_writes_versioned")
"""Checkpoint metadata keys that mark a thread of a graph using LangGraph's ``DeltaChannel`` (beta):
the counters LangGraph writes (``CheckpointMetadata.counters_since_delta_snapshot``) and the
marker LangGraph.js writes (which ``langgraph-checkpoint-postgres``'s own prune looks for too)."""


def uses_delta(metadata: Mapping[str, Any]) -> bool:
    """Whether a checkpoint's metadata marks a graph with a ``DeltaChannel``: its checkpoints are
    read through their ancestors, so a store that prunes must keep that thread's history whole."""
    return any(key in metadata for key in DELTA_MARKERS)


def own_graph_task(metadata: dict[str, Any] | None) -> bool:
    """A callback's run is a task of the streamed graph itself, not of a graph run inside one of its nodes.

    As LangGraph's stream handlers tell (``graph_namespace``): the checkpoint namespace
    (``langgraph_checkpoint_ns``) holds a segment per graph level (``node:id|inner:id``); a
    ``@task`` call nests one more under its caller (``langgraph_path`` = ``(PUSH, caller path, index, True)``).
    """
    if not metadata or not metadata.get("langgraph_checkpoint_ns"):
        return bool(metadata)
    depth = len(str(metadata["langgraph_checkpoint_ns"]).split("|"))
    path = metadata.get("langgraph_path", ())
    nested = 1
    while isinstance(path, tuple) and len(path) == 4 and path[0] == PUSH and path[-1] is True:
        nested += 1
        path = path[1]
    return depth <= nested


def overwritten(value: Any) -> Any:
    """The value inside LangGraph's ``Overwrite`` (a node's update that replaces a channel), else ``value``."""
    from langgraph.types import Overwrite

    return value.value if isinstance(value, Overwrite) else value


def drop_memory_checkpoints(saver: Any, thread_id: str, checkpoint_ns: str, before: str) -> int:
    """Delete a thread's checkpoints older than ``before`` from an ``InMemorySaver``; how many went.

    ``InMemorySaver`` keeps ``storage[thread][ns][checkpoint_id] = (checkpoint, metadata,
    parent_id)`` (the checkpoint serialised without its channel values), ``writes[(thread, ns,
    checkpoint_id)]`` and ``blobs[(thread, ns, channel, version)]`` (the channel values). A
    deleted checkpoint's pending writes go with it, and so does each of its blobs that no
    checkpoint left references (every kept checkpoint's ``channel_versions`` is read first,
    so a value one of them needs always stays).
    """
    checkpoints = saver.storage.get(thread_id, {}).get(checkpoint_ns)
    if not checkpoints:
        return 0
    ids = list(checkpoints)
    old = [cid for cid in ids if cid < before]
    if not old:
        return 0

    def versions(cid: str) -> set[tuple[str, Any]]:
        stored = saver.serde.loads_typed(checkpoints[cid][0])
        return set(stored.get("channel_versions", {}).items())

    kept: set[tuple[str, Any]] = set()
    for cid in ids:
        if cid >= before:
            kept |= versions(cid)
    gone: set[tuple[str, Any]] = set()
    for cid in old:
        gone |= versions(cid)
        del checkpoints[cid]
        saver.writes.pop((thread_id, checkpoint_ns, cid), None)
    for channel, version in gone - kept:
        saver.blobs.pop((thread_id, checkpoint_ns, channel, version), None)
    return len(old)
