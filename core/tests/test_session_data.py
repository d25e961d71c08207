"""Typed per-plugin session data (``SessionContext.data``) and scratch objects, in-process."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import pytest
from pydantic import BaseModel

from langacp import SessionContext
from langacp.session_data import data_name, sync_record
from langacp.stores import SessionRecord


@dataclass
class Remembered:
    answers: list[str] = field(default_factory=list)
    count: int = 0


class Settings(BaseModel):
    model: str | None = None
    level: str = "default"


def test_data_is_one_object_per_session_and_is_saved_under_its_name() -> None:
    session = SessionContext("s1", "/tmp")
    mine = session.data(Remembered, "mine")
    mine.answers.append("yes")
    assert session.data(Remembered, "mine") is mine
    session.data(Settings, "settings").model = "big"
    assert session.saved_data() == {
        "mine": {"answers": ["yes"], "count": 0},
        "settings": {"model": "big", "level": "default"},
    }


def test_data_round_trips_through_a_record() -> None:
    record = SessionRecord(session_id="s1", cwd="/tmp", data={"mine": {"answers": ["a"], "count": 2}})
    session = SessionContext("s1", "/tmp", stored=record.data)
    restored = session.data(Remembered, "mine")
    assert restored == Remembered(["a"], 2)
    restored.count += 1
    session.title = "A title"
    session.mode_id = "code"
    sync_record(record, session)
    assert (record.title, record.mode_id, record.data["mine"]["count"]) == ("A title", "code", 3)
    again = SessionContext("s1", "/tmp", stored=SessionRecord.from_dict(record.as_dict()).data)
    assert again.data(Remembered, "mine") == Remembered(["a"], 3)


def test_data_that_no_longer_fits_starts_afresh(caplog: pytest.LogCaptureFixture) -> None:
    session = SessionContext("s1", "/tmp", stored={"mine": {"answers": "not a list"}, "other": {"keep": 1}})
    with caplog.at_level(logging.WARNING):
        assert session.data(Remembered, "mine") == Remembered()
    assert "does not fit Remembered" in caplog.text
    assert session.saved_data()["other"] == {"keep": 1}  # nobody else's data is touched


def test_one_name_one_model() -> None:
    session = SessionContext("s1", "/tmp")
    session.data(Remembered, "mine")
    with pytest.raises(TypeError):
        session.data(Settings, "mine")


def test_default_name_is_the_package_without_the_prefix() -> None:
    assert data_name(Remembered) == "test_session_data"
    Renamed = type("Renamed", (), {"__module__": "langacp_modes.session"})
    assert data_name(Renamed) == "modes"
    Third = type("Third", (), {"__module__": "my_titles.plugin"})
    assert data_name(Third) == "my_titles"


def test_scratch_is_typed_live_state_not_saved() -> None:
    session = SessionContext("s1", "/tmp")
    made = session.scratch(Remembered, lambda: Remembered(count=5))
    assert session.scratch(Remembered) is made and made.count == 5
    assert session.saved_data() == {}


def test_scratch_if_any_finds_the_object_without_making_one() -> None:
    session = SessionContext("s1", "/tmp")
    assert session.scratch_if_any(Remembered) is None
    assert session.scratch_if_any(Remembered) is None  # asking made nothing
    made = session.scratch(Remembered)
    assert session.scratch_if_any(Remembered) is made
