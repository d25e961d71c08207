"""A session's settings: ``session/set_mode`` and ``session/set_config_option``."""

from __future__ import annotations

from acp import RequestError
from acp.schema import SetSessionConfigOptionResponse, SetSessionModeResponse

from langacp.agent.registry import SessionRegistry

__all__ = ["SettingMethods"]


class SettingMethods:
    """Changes a session's mode or a config option through the plugins, then saves the session."""

    def __init__(self, registry: SessionRegistry) -> None:
        self.registry = registry
        self.plugins = registry.plugins

    async def set_mode(self, session_id: str, mode_id: str) -> SetSessionModeResponse:
        from langacp.operations import change_mode

        # After a load (resume, close) of the session that arrived first, never halfway through it.
        async with self.registry.one_at_a_time(session_id):
            session = self.registry.get(session_id)
            await change_mode(self.plugins, session.context, session.sink, mode_id)
            await self.registry.save(session)
        return SetSessionModeResponse()

    async def set_config_option(
        self, session_id: str, config_id: str, value: str | bool
    ) -> SetSessionConfigOptionResponse:
        async with self.registry.one_at_a_time(session_id):  # as set_mode
            session = self.registry.get(session_id)
            ok = await self.plugins.set_config_option(session.context, config_id, value)
            if ok is None:
                raise RequestError.invalid_params({"details": f"unknown config option {config_id!r}"})
            if not ok:
                raise RequestError.invalid_params({"details": f"invalid value for {config_id!r}: {value!r}"})
            await self.registry.save(session)
        return SetSessionConfigOptionResponse(config_options=self.plugins.config_options(session.context))
