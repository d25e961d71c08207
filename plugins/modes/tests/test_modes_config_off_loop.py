"""langacp-modes reads its modes from the session's configuration layers, never the files on the event loop."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from modes_support import served, user_config

import langacp.trust
import langacp_modes.config


async def test_a_session_s_modes_come_without_reading_a_file_on_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_config(tmp_path, '[modes.review]\nname = "Review"\ntools = ["add"]\n')
    reads: list[int] = []
    real = langacp.trust.load_layers

    def counted(cwd: str) -> Any:
        reads.append(threading.get_ident())
        return real(cwd)

    monkeypatch.setattr(langacp.trust, "load_layers", counted)  # what layers_for would call
    monkeypatch.setattr(langacp_modes.config, "load_layers", counted)  # what load_config would call
    async with served(tmp_path) as agent:  # in process: the event loop runs on this thread
        await agent.initialize()
        for _ in range(2):
            new = await agent.conn.new_session(cwd=str(agent.cwd))
            assert new.modes is not None and "review" in [m.id for m in new.modes.available_modes]
    assert reads, "the configuration was never read"
    assert threading.get_ident() not in reads  # read in a worker thread only
