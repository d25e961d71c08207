"""``ToolCallIds`` gives the ids it always gave; a reused model id costs as much at turn 2,000 as at turn 2."""

from __future__ import annotations

import random

import pytest

from langacp.bridge.tool_ids import ToolCallIds


class _Reference:
    """The allocation as it was specified: the first unused ``model_id#N`` (N from 2), found by a scan."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.turn: dict[str, str] = {}

    def new_turn(self) -> None:
        self.turn = {}

    def reset(self) -> None:
        self.used.clear()
        self.turn = {}

    def claim(self, model_id: str) -> str:
        if model_id in self.turn:
            return self.turn[model_id]
        acp_id = model_id
        n = 2
        while acp_id in self.used:
            acp_id = f"{model_id}#{n}"
            n += 1
        self.used.add(acp_id)
        self.turn[model_id] = acp_id
        return acp_id


class _CountingSet(set[str]):
    """A set that counts its membership tests (the work an id allocation does)."""

    checks = 0

    def __contains__(self, item: object) -> bool:
        type(self).checks += 1
        return super().__contains__(item)


def _script(seed: int) -> list[tuple[str, str]]:
    """Turns of model ids, with ids reused across turns, repeated within one, seeded from a replay
    (ids the model itself spelt ``x#N``) and an occasional reset."""
    rng = random.Random(seed)
    names = ["call_0", "call_1", "toolu_a", "call_0#3", "call_1#2", "x"]
    steps: list[tuple[str, str]] = []
    for _ in range(300):
        r = rng.random()
        if r < 0.2:
            steps.append(("turn", ""))
        elif r < 0.22:
            steps.append(("reset", ""))
        elif r < 0.27:
            steps.append(("seed", rng.choice(names) + f"#{rng.randint(2, 9)}"))
        else:
            steps.append(("claim", rng.choice(names)))
    return steps


@pytest.mark.parametrize("seed", range(20))
def test_the_ids_are_those_the_scan_gives(seed: int) -> None:
    ids, reference = ToolCallIds(), _Reference()
    for step, value in _script(seed):
        if step == "turn":
            ids.new_turn()
            reference.new_turn()
        elif step == "reset":
            ids.reset()
            reference.reset()
        elif step == "seed":  # as session/load seeds the ids a replay sent
            ids.used.add(value)
            reference.used.add(value)
        else:
            assert ids.claim(value) == reference.claim(value)
            assert ids.of(value) == reference.turn[value]
    assert ids.used == reference.used


def test_one_id_reused_every_turn() -> None:
    ids = ToolCallIds()
    got = []
    for _ in range(5):
        ids.new_turn()
        got.append(ids.claim("call_0"))
        assert ids.claim("call_0") == got[-1]  # the same call within the turn
    assert got == ["call_0", "call_0#2", "call_0#3", "call_0#4", "call_0#5"]
    ids.reset()
    ids.used.update({"call_0", "call_0#2", "call_0#4"})  # a replay's ids, with a gap
    found = []
    for _ in range(3):
        ids.new_turn()
        found.append(ids.claim("call_0"))
    assert found == ["call_0#3", "call_0#5", "call_0#6"]


def _checks_for(turns: int) -> int:
    ids = ToolCallIds()
    ids.used = _CountingSet()
    _CountingSet.checks = 0
    for _ in range(turns):
        ids.new_turn()
        ids.claim("call_0")
    return _CountingSet.checks


def test_reusing_one_id_costs_the_same_per_turn_however_long_the_session() -> None:
    short, long = _checks_for(200), _checks_for(2_000)
    # Ten times the turns, about ten times the work (a scan from #2 on every turn did a hundred
    # times): a few membership tests per turn, however many turns came before.
    assert long <= 11 * short
    assert long <= 3 * 2_000
