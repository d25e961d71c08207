"""One ``langgraph dev`` server for the whole test session (it takes seconds to start)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langacp_remote.testing import LangGraphDevServer

GRAPHS = Path(__file__).with_name("remote_graphs.py")


@pytest.fixture(scope="session")
def langgraph_server() -> Iterator[LangGraphDevServer]:
    with LangGraphDevServer({"agent": f"{GRAPHS}:graph", "hitl": f"{GRAPHS}:hitl"}) as server:
        yield server
