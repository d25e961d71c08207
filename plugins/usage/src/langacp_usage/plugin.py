"""The usage plugin's hooks.

* after each model call, a ``usage_update``: tokens in context (input + output of that call)
  against the model's context window, and the session's cost when prices are configured;
* the prompt response's ``usage``: the turn's token totals;
* on ``session/load`` / resume, the last known ``usage_update`` again.

The per-call updates come from a middleware, so only agents built by a factory send them
after every call; for a precompiled graph one update is sent at the end of each turn.
"""

from __future__ import annotations

from typing import Any

from langacp.api import SessionContext, TurnOutcome, hookimpl
from langacp_usage.meter import Meter


def meter(session: SessionContext) -> Meter:
    """This session's meter (configuration read once per session)."""
    return session.scratch(Meter, lambda: Meter(session))


@hookimpl
def langacp_config_tables() -> list[Any]:
    from langacp.api import ConfigTable
    from langacp_usage.meter import IF_INVALID
    from langacp_usage.table import UsageTable

    return [ConfigTable("usage", UsageTable, IF_INVALID)]


@hookimpl
def langacp_session_middleware(session: SessionContext) -> list[Any]:
    from langacp_usage.middleware import UsageReporter

    return [UsageReporter(meter(session))]


@hookimpl
async def langacp_session_loaded(session: SessionContext) -> None:
    update = meter(session).current()
    if update is not None and session.send_update is not None:
        await session.send_update(update)


@hookimpl
def langacp_prompt_started(session: SessionContext, prompt: Any) -> None:
    meter(session).calls_this_turn = 0


@hookimpl
def langacp_prompt_usage(session: SessionContext, outcome: TurnOutcome) -> Any:
    totals = outcome.usage
    if not totals:
        return None
    from acp.schema import Usage

    return Usage(
        total_tokens=totals.get("total_tokens", 0),
        input_tokens=totals.get("input_tokens", 0),
        output_tokens=totals.get("output_tokens", 0),
        thought_tokens=totals.get("reasoning"),
        cached_read_tokens=totals.get("cache_read"),
        cached_write_tokens=totals.get("cache_creation"),
    )


@hookimpl
async def langacp_prompt_finished(session: SessionContext, stop_reason: str, outcome: TurnOutcome) -> None:
    if meter(session).calls_this_turn or outcome.last_message is None or session.send_update is None:
        return
    # No middleware in this agent (a precompiled graph): report the turn's last model call now.
    update = meter(session).update(outcome.last_message)
    if update is not None:
        await session.send_update(update)
