"""The ``[modes]`` and ``[models]`` tables' models (imported when a session reads them)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from langacp.api import ConfigModel, Decision, Strings, config_value_error

__all__ = ["ChoiceTable", "ModeTable", "ModelsTable", "ModesTable", "RulesTable", "ThinkingTable"]


class RulesTable(ConfigModel):
    """``[modes.ID.permissions]``: a default decision and decisions by kind and tool (glob patterns)."""

    default: Decision | None = None
    kinds: dict[str, Decision] = Field(default_factory=dict)
    tools: dict[str, Decision] = Field(default_factory=dict)


class ModeTable(ConfigModel):
    """``[modes.ID]``: a mode's text, the tools and kinds it offers, its rules; ``enabled = false`` removes it."""

    name: str | None = None
    description: str | None = None
    system_prompt: str | None = None
    tools: Strings | None = None
    kinds: Strings | None = None
    permissions: RulesTable | None = None
    enabled: bool = True


class ModesTable(ConfigModel):
    """``[modes]``: ``default`` (a mode id, user file only) and one ``[modes.ID]`` table per mode."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, ModeTable]  # type: ignore[assignment]

    default: str | None = None

    def modes(self) -> dict[str, ModeTable]:
        return dict(self.__pydantic_extra__ or {})


class ThinkingTable(ConfigModel):
    """``thinking = { on = {...}, off = {...} }``: the model settings that switch a model's thinking on and off."""

    on: dict[str, Any] = Field(default_factory=dict)
    off: dict[str, Any] = Field(default_factory=dict)


class ChoiceTable(ConfigModel):
    """One of ``[models] choices``: a model name, or a table with exactly one of ``model`` and ``factory``."""

    id: str | None = None
    name: str | None = None
    description: str | None = None
    model: str | None = None
    factory: str | None = None
    thought_levels: Strings = ()
    thought_setting: str = "reasoning_effort"
    thinking: bool | ThinkingTable = False

    @model_validator(mode="after")
    def _one_source(self) -> ChoiceTable:
        if (self.model is None) == (self.factory is None):
            raise config_value_error(
                "a choice needs exactly one of model (a model name) or factory (module:attr)",
                'write model = "provider:name" or factory = "module:attr"',
            )
        return self


def _choice(value: Any) -> Any:
    if isinstance(value, str):
        return {"model": value}
    if not isinstance(value, dict):
        raise config_value_error("a choice is a model name or a table", 'write "provider:name" or { model = "…" }')
    return value


class ModelsTable(ConfigModel):
    """``[models]``: the model choices offered in every session."""

    choices: list[Annotated[ChoiceTable, BeforeValidator(_choice)]] = Field(default_factory=list)
