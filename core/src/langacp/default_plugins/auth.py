"""Auth methods for the configured model's API key (``langacp.auth``): offered when the model needs a key."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from langacp import auth
from langacp.hookspecs import hookimpl


@hookimpl
def langacp_auth_methods() -> list[Any] | None:
    return auth.auth_methods(auth.current_key()) or None


@hookimpl
def langacp_authenticate(method_id: str) -> Awaitable[bool] | None:
    """``langacp-env``: the key is in the environment or was stored by a login (terminal methods never come here).

    Not ``async def``: a first-result hook must return ``None`` itself for a method that is not its own.
    """
    key = auth.current_key()
    if key is None or method_id != auth.ENV_METHOD:
        return None
    return asyncio.to_thread(auth.use_stored_key, key)
