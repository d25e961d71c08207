"""For the tests of every package: the developer's own langacp files are never read or written.

Agents started by tests inherit this environment, so a user's ``~/.config/langacp/config.toml``
cannot change a test's outcome and no test writes to ``~/.local/share/langacp/sessions.db``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
