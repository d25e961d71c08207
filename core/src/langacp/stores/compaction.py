"""``langacp sessions compact``: a store's checkpoints trimmed to what its sessions can still need."""

from __future__ import annotations

import asyncio
import sys

from langacp.stores import Compaction, StoreError, default_store_url, open_store

__all__ = ["compact", "main"]


async def compact(url: str) -> Compaction | None:
    """Open the store at ``url`` and run its ``compact()``; ``None`` when the driver has none."""
    store = open_store(url)
    if not hasattr(store, "compact"):
        return None
    aopen = getattr(store, "aopen", None)
    if aopen is not None:
        await aopen()
    try:
        result: Compaction = await store.compact()
    finally:
        await store.aclose()
    return result


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e5 else f"{n / 1e3:.0f} KB"


def main(url: str | None) -> int:
    """Compact the store at ``url`` (default: the one ``langacp serve`` uses) and say what it did."""
    url = url or default_store_url()
    try:
        result = asyncio.run(compact(url))
    except (StoreError, ValueError, OSError) as exc:
        print(f"langacp: {exc}", file=sys.stderr)
        return 1
    if result is None:
        print(f"langacp: the {url.split(':', 1)[0]} store has nothing to compact")
        return 0
    print(
        f"{result.where}: {result.checkpoints_deleted} old checkpoints deleted, "
        f"{_size(result.bytes_before)} -> {_size(result.bytes_after)}"
    )
    return 0
