"""Stop reasons for langacp: why a turn ended, told honestly, and provider errors told clearly."""

from __future__ import annotations

from langacp_stop_reasons.errors import ProviderError, classify

__all__ = ["ProviderError", "classify"]
