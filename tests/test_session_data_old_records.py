"""Sessions saved before typed session data (plugin data as plain dicts in ``record.data``) still load."""

from __future__ import annotations

import logging

import pytest

from langacp.api import SessionContext, SessionRecord
from langacp_modes.session import ModesData
from langacp_permissions.remembered import PermissionsData, remembered
from langacp_titles.titles import TitlesData
from langacp_usage.meter import UsageData

OLD_RECORD = {
    "session_id": "s1",
    "cwd": "/project",
    "title": "Fix the parser",
    "mode_id": "readonly",
    "data": {
        "langacp": {"mcp_servers": []},
        "modes": {"model": "big", "thought_level": "high"},
        "permissions": {
            "remembered": [
                {"tool": "sh", "prefix": ["make"], "decision": "allow"},  # a two-word prefix of old: not trusted
                {"tool": "read_notes", "decision": "allow"},
                "garbage",
            ]
        },
        "titles": {"source": "user"},
        "usage": {"used": 1200, "size": 200000, "model": "m", "cost": 0.25, "currency": "EUR"},
    },
}


def test_an_old_record_fills_the_typed_models(caplog: pytest.LogCaptureFixture) -> None:
    record = SessionRecord.from_dict(OLD_RECORD)
    session = SessionContext("s1", record.cwd, mode_id=record.mode_id, title=record.title, stored=record.data)
    with caplog.at_level(logging.WARNING):
        assert session.data(ModesData) == ModesData(model="big", thought_level="high")
        assert session.data(TitlesData) == TitlesData(source="user")
        assert session.data(UsageData) == UsageData(used=1200, size=200000, model="m", cost=0.25, currency="EUR")
        assert len(session.data(PermissionsData).remembered) == 3
    assert caplog.text == ""  # nothing had to be started afresh
    # The old command prefix and the garbage entry are ignored, never trusted; a whole-tool answer still holds.
    [(scope, decision)] = remembered(session)
    assert (scope.tool, scope.prefix, decision) == ("read_notes", None, "allow")
    assert session.saved_data() == OLD_RECORD["data"]  # saved back unchanged
