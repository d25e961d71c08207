"""Outgoing messages: one JSON line each, whatever they hold (orjson when it can, json when it cannot)."""

from __future__ import annotations

import json

import pytest

from langacp.transport import encode_message


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"jsonrpc": "2.0", "method": "m", "params": {"text": "a\nb é ✓"}}, None),
        (
            {"value": float("nan"), "other": [float("inf"), -float("inf"), 1.5]},
            {"value": None, "other": [None, None, 1.5]},
        ),
        ({"text": "lone \ud800 surrogate"}, None),  # orjson refuses it: json escapes it
        ({"big": 2**70, "small": -(2**63)}, None),  # beyond 64 bits: json
        ({1: "int key", None: "null key"}, {"1": "int key", "null": "null key"}),  # orjson refuses non-str keys
    ],
)
def test_every_message_is_one_json_line(message: dict, expected: dict | None) -> None:
    line = encode_message(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == (message if expected is None else expected)
