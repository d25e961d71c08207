"""One ``langgraph dev`` server for the whole test session (it takes seconds to start)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langacp_remote.testing import LangGraphDevServer

GRAPHS = Path(__file__).with_name("remote_graphs.py")


@pytest.fixture(scope="session")
def langgraph_server() -> Iterator[LangGraphDevServer]:
    names = {"agent": "graph", "hitl": "hitl", "editor": "editor", "configured": "configured"}
    graphs = {name: f"{GRAPHS}:{attr}" for name, attr in names.items()}
    with LangGraphDevServer(graphs) as server:
        yield server
