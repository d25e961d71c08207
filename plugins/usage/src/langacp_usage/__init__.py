"""Usage for langacp: how full the context window is, what the session cost, tokens per turn."""

from __future__ import annotations

from langacp_usage.meter import Meter, Prices

__all__ = ["Meter", "Prices"]
