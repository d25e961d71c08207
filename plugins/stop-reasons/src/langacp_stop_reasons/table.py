"""The ``[stop_reasons]`` table's model (imported when a session reads it)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from langacp.api import ConfigModel, config_value_error

__all__ = ["StopReasonsTable"]


def _count(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise config_value_error(f"must be a whole number >= 0, not {value!r}", "write a number such as 50 (0: no limit)")


class StopReasonsTable(ConfigModel):
    """``[stop_reasons]``: the per-prompt model-call limit, and whether a refused turn is forgotten."""

    max_model_calls: Annotated[int, BeforeValidator(_count)] | None = None
    forget_refusals: bool = True
