from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """A fresh SQLite file for one test."""
    return f"sqlite://{tmp_path / 'sessions.db'}"
