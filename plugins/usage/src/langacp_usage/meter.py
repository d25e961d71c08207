"""One session's usage meter: context window, prices, and the running cost.

Configuration, ``[usage]`` in ``.langacp.toml`` (project) or
``$XDG_CONFIG_HOME/langacp/config.toml`` (user)::

    [usage]
    context_window = 200000          # models not in context_windows (else the model's profile decides)
    currency = "USD"

    [usage.context_windows]          # by model name
    "gpt-4.1-mini" = 1047576

    [usage.prices."claude-sonnet-4-5"]  # per million tokens
    input = 3.0
    output = 15.0
    cache_read = 0.3                 # optional (default: input)
    cache_write = 3.75               # optional (default: input)

A ``"*"`` entry in ``prices`` applies to any model not listed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from langacp.api import SessionContext, layers_for

__all__ = ["Meter", "Prices", "UsageData"]

log = logging.getLogger("langacp.usage")


@dataclass
class UsageData:
    """What is kept with the session (``session.data``, name ``usage``): the last call's size, the running cost."""

    used: int | None = None
    """Tokens in context after the last model call (its input + output)."""
    size: int | None = None
    """The context window of the last model called."""
    model: str | None = None
    cost: float | None = None
    currency: str | None = None


@dataclass(frozen=True)
class Prices:
    """Prices per million tokens."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    def cost(self, usage: dict[str, Any]) -> float:
        """The cost of one model call from its ``usage_metadata``."""
        details = usage.get("input_token_details") or {}
        cache_read = int(details.get("cache_read") or 0)
        cache_write = int(details.get("cache_creation") or 0)
        fresh = max(0, int(usage.get("input_tokens") or 0) - cache_read - cache_write)
        total = fresh * self.input + int(usage.get("output_tokens") or 0) * self.output
        total += cache_read * (self.input if self.cache_read is None else self.cache_read)
        total += cache_write * (self.input if self.cache_write is None else self.cache_write)
        return total / 1_000_000


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


IF_INVALID = "no cost is shown and the context window comes from the model"


class Meter:
    """Turns each model call's token usage into an ACP ``usage_update`` for one session."""

    def __init__(self, session: SessionContext) -> None:
        from langacp.api import ConfigError, read_table
        from langacp_usage.table import UsageTable

        self.session = session
        layers = layers_for(session)
        try:
            table = read_table(UsageTable, "usage", layers)
        except ConfigError as exc:
            layers.report(str(exc), IF_INVALID)
            table = UsageTable()
        self.config: UsageTable | None = table if table.model_fields_set else None
        """The session's ``[usage]`` table; ``None`` when it sets nothing (no window, no prices): an
        open session then keeps no table of defaults of its own."""
        self.currency = table.currency or "USD"

        self.calls_this_turn = 0
        """Model calls the middleware reported in the running turn (reset when a prompt starts)."""

    @property
    def data(self) -> UsageData:
        """What is kept with the session: the last ``used`` / ``size``, the cumulative ``cost``."""
        return self.session.data(UsageData)

    def window(self, model_name: str | None, model: Any = None) -> int | None:
        """The context window: the config's, else the model profile's ``max_input_tokens``."""
        config = self.config
        if config is not None and model_name is not None and model_name in config.context_windows:
            return config.context_windows[model_name]
        if config is not None and config.context_window is not None:
            return config.context_window
        profile = getattr(model, "profile", None)
        if isinstance(profile, dict) and _number(profile.get("max_input_tokens")) is not None:
            return int(profile["max_input_tokens"])
        return None

    def prices(self, model_name: str | None) -> Prices | None:
        if self.config is None:
            return None
        table = self.config.prices
        entry = table.get(model_name) if model_name in table else table.get("*")
        if entry is None:
            return None
        return Prices(entry.input, entry.output, entry.cache_read, entry.cache_write)

    def update(self, message: Any, model: Any = None) -> Any | None:
        """Account for one model response; the ``usage_update`` to send (``None``: window unknown)."""
        usage = getattr(message, "usage_metadata", None)
        if not usage:
            return None
        model_name = (getattr(message, "response_metadata", None) or {}).get("model_name") or _model_name(model)
        data = self.data
        prices = self.prices(model_name)
        if prices is not None:
            data.cost = (data.cost or 0.0) + prices.cost(dict(usage))
            data.currency = self.currency
        data.used = int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)
        data.model = model_name
        size = self.window(model_name, model)
        if size is None:
            log.debug("langacp: context window of model %r unknown; no usage_update", model_name)
            return None
        data.size = size
        return self.current()

    def current(self) -> Any | None:
        """The ``usage_update`` for what is known now, or ``None``."""
        from acp.schema import Cost, UsageUpdate

        data = self.data
        if data.used is None or data.size is None:
            return None
        cost = None
        if data.cost is not None:
            cost = Cost(amount=round(data.cost, 6), currency=data.currency or self.currency)
        return UsageUpdate(session_update="usage_update", used=data.used, size=data.size, cost=cost)


def _model_name(model: Any) -> str | None:
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return None
