"""The ``[usage]`` table's model (imported when a session reads it)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from langacp.api import ConfigModel, config_value_error

__all__ = ["PriceTable", "UsageTable"]


def _number(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    raise config_value_error(f"must be a number >= 0, not {value!r}", "write a price per million tokens, e.g. 3.0")


def _tokens(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise config_value_error(f"must be a whole number of tokens, not {value!r}", "write e.g. 200000")


Price = Annotated[float, BeforeValidator(_number)]
Tokens = Annotated[int, BeforeValidator(_tokens)]


class PriceTable(ConfigModel):
    """``[usage.prices.MODEL]``: prices per million tokens (cache prices default to ``input``)."""

    input: Price
    output: Price
    cache_read: Price | None = None
    cache_write: Price | None = None


class UsageTable(ConfigModel):
    """``[usage]``: context windows, the currency, prices by model name (``"*"``: any other model)."""

    context_window: Tokens | None = None
    context_windows: dict[str, Tokens] = Field(default_factory=dict)
    currency: str = "USD"
    prices: dict[str, PriceTable] = Field(default_factory=dict)
