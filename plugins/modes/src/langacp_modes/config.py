"""Modes and model choices from code and from the configuration files.

Read when a session starts or is loaded, in this order (a later source changes or adds modes):

1. the built-in modes and those registered from code (:func:`register_mode`);
2. the user's ``$XDG_CONFIG_HOME/langacp/config.toml`` (default ``~/.config/langacp/config.toml``);
3. the project's ``.langacp.toml`` in the session's working directory.

Only the ``[modes]`` and ``[models]`` tables are read; other plugins' tables are left alone. A
project file may not loosen anything (its ``allow`` rules are ignored, with a warning), may
not name model factories (code to import) and may not replace a model choice the user or code
defined (it may add choices): a repository you just cloned must not be able to make a mode run
commands, import its own code, or swap the model behind a choice the user picked.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from langacp.api import (
    PROJECT_FILE,
    ConfigError,
    ConfigLayers,
    ConfigTable,
    PermissionDecision,
    load_layers,
    project_config_path,
    read_table,
    user_config_path,
)
from langacp_modes.mode import DEFAULT_MODE_ID, DEFAULT_MODES, Mode, ModeRule

if TYPE_CHECKING:
    from langacp_modes.table import ModelsTable, ModesTable, ModeTable, RulesTable

__all__ = [
    "PROJECT_FILE",
    "ConfigError",
    "ModeConfig",
    "ModelChoice",
    "config_for",
    "config_tables",
    "load_config",
    "register_mode",
    "register_model",
    "user_config_path",
]

log = logging.getLogger("langacp_modes")

_registered_modes: dict[str, Mode] = {}
_registered_models: dict[str, ModelChoice] = {}
_generation = 0
"""Bumped by :func:`register_mode` and :func:`register_model`: configurations read before are read again."""


@dataclass(frozen=True)
class ModelChoice:
    """A model the user may switch to: an ``init_chat_model`` spec or a ``module:attr`` factory.

    ``thought_levels`` (e.g. ``["low", "medium", "high"]``) are offered as the thought-level
    option while this model is chosen, passed to the model as ``thought_setting`` (default
    ``reasoning_effort``, OpenAI's name; Anthropic-style thinking budgets need a factory).
    """

    id: str
    name: str
    model: str | None = None
    factory: str | None = None
    description: str | None = None
    thought_levels: tuple[str, ...] = ()
    thought_setting: str = "reasoning_effort"
    thinking: bool = False
    """Offer thinking on/off (the ``thinking`` option) while this model is chosen."""
    thinking_settings: tuple[dict[str, Any], dict[str, Any]] | None = field(default=None, compare=False, hash=False)
    """The model settings for thinking on and off; ``None``: the preset of the model's class
    (:data:`langacp_modes.thinking.PRESETS`)."""


@dataclass
class ModeConfig:
    """Everything this plugin read for a session; the sessions of unchanged files share it: never change it."""

    modes: dict[str, Mode]
    default_mode: str = DEFAULT_MODE_ID
    models: dict[str, ModelChoice] = field(default_factory=dict)
    views: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)
    """What is built from this configuration once and shared by its sessions (the mode list, the options)."""


def register_mode(mode: Mode) -> None:
    """Add (or replace, by id) a mode for every session, from code; the configuration files still apply."""
    global _generation
    _registered_modes[mode.id] = mode
    _generation += 1


def register_model(choice: ModelChoice) -> None:
    """Offer a model choice in every session, from code."""
    global _generation
    _registered_models[choice.id] = choice
    _generation += 1


IF_INVALID = "the file's [modes] and [models] are ignored"


def config_tables() -> list[ConfigTable]:
    """The ``[modes]`` and ``[models]`` tables, for ``langacp check`` and the core's one-line report."""
    from langacp_modes.table import ModelsTable, ModesTable

    return [ConfigTable("modes", ModesTable, IF_INVALID), ConfigTable("models", ModelsTable, IF_INVALID)]


def _rules(table: RulesTable, where: str, *, project: bool) -> tuple[ModeRule, ...]:
    found: list[tuple[str, str | None, str | None]] = []
    if table.default is not None:
        found.append((table.default, None, "*"))
    found += [(decision, None, pattern) for pattern, decision in table.kinds.items()]
    found += [(decision, pattern, None) for pattern, decision in table.tools.items()]
    rules = []
    for decision, tool, kind in found:
        if project and decision == "allow":
            log.warning("langacp-modes: %s: a project file may only tighten; its allow rule is ignored", where)
            continue
        rules.append(ModeRule(cast(PermissionDecision, decision), tool=tool, kind=kind))
    return tuple(rules)


def _apply_modes(
    modes: dict[str, Mode], table: ModesTable, path: Path, *, project: bool
) -> tuple[dict[str, Mode], str | None]:
    modes = dict(modes)
    for key, value in table.modes().items():
        if not value.enabled:
            modes.pop(key, None)
        else:
            mode = modes.get(key) or Mode(key, key.replace("_", " ").title())
            where = f"{path}: [modes.{key}]"
            modes[key] = replace(mode, **_mode_changes(mode, value, where, project=project))
    return modes, table.default


def _mode_changes(mode: Mode, value: ModeTable, where: str, *, project: bool) -> dict[str, Any]:
    """What a ``[modes.ID]`` table changes in ``mode``."""
    changes: dict[str, Any] = {}
    for name in ("name", "description", "system_prompt", "tools", "kinds"):
        if getattr(value, name) is not None:
            changes[name] = getattr(value, name)
    if project and ("tools" in changes or "kinds" in changes) and mode.restricted:
        changes.update(_narrowed(mode, changes))
    if project and mode.system_prompt and "system_prompt" in changes:  # it may add instructions, not remove yours
        changes["system_prompt"] = f"{mode.system_prompt}\n\n{changes['system_prompt']}"
    if value.permissions is not None:
        changes["rules"] = (*mode.rules, *_rules(value.permissions, f"{where}.permissions", project=project))
    return changes


def _narrowed(mode: Mode, changes: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """A project's new tools and kinds for a restricted mode: it may narrow what runs, never widen it."""
    old_tools, old_kinds = set(mode.tools or ()), set(mode.kinds or ())
    return {
        "tools": tuple(t for t in changes.get("tools", mode.tools or ()) if t in old_tools),
        "kinds": tuple(k for k in changes.get("kinds", mode.kinds or ()) if k in old_kinds),
    }


def _apply_models(
    models: dict[str, ModelChoice], table: ModelsTable, path: Path, *, project: bool
) -> dict[str, ModelChoice]:
    models = dict(models)
    for index, entry in enumerate(table.choices):
        where = f"{path}: [models] choices[{index}]"
        if project and entry.factory is not None:
            log.warning("langacp-modes: %s: a project file may not name model factories; ignored", where)
            continue
        choice_id = entry.id or entry.model or entry.factory or ""
        settings = None
        if not isinstance(entry.thinking, bool):
            if project:  # any keyword argument of the model call: only the user's own file may name them
                log.warning(
                    "langacp-modes: %s: a project file may not set thinking settings; its preset is used", where
                )
            else:
                settings = (dict(entry.thinking.on), dict(entry.thinking.off))
        thought_setting = entry.thought_setting
        if project and thought_setting != "reasoning_effort":  # which keyword of the model call: the user's to say
            log.warning("langacp-modes: %s: a project file may not set thought_setting; ignored", where)
            thought_setting = "reasoning_effort"
        choice = ModelChoice(
            id=choice_id,
            name=entry.name or choice_id,
            model=entry.model,
            factory=entry.factory,
            description=entry.description,
            thought_levels=entry.thought_levels,
            thought_setting=thought_setting,
            thinking=entry.thinking is not False,
            thinking_settings=settings,
        )
        if project and choice.id in models:  # the user's "fast" must stay the model the user chose
            log.warning(
                "langacp-modes: %s: a project file may not replace the model choice %r; ignored", where, choice.id
            )
            continue
        models[choice.id] = choice
    return models


def load_config(cwd: str, layers: ConfigLayers | None = None) -> ModeConfig:
    """The modes and model choices for a session in ``cwd``. A broken file is reported and skipped.

    ``layers`` are the session's configuration as the core gives it (read here when not given):
    the project's part is already restricted (no ``allow``, no ``enabled = false``, no default
    mode, no factories) unless the user trusts the project.
    """
    from langacp_modes.table import ModelsTable, ModesTable

    layers = layers if layers is not None else load_layers(cwd)
    unreadable = layers.unreadable(project=False)
    if unreadable is not None:
        layers.report(unreadable, IF_INVALID)
    modes = {m.id: m for m in DEFAULT_MODES} | dict(_registered_modes)
    config = ModeConfig(modes=modes, models=dict(_registered_models))
    sources = (
        (layers.user, layers.user_path or user_config_path(), False),
        (layers.project, layers.project_path or project_config_path(cwd), not layers.trusted),
    )
    for document, path, project in sources:
        if not document:
            continue
        try:
            modes_table = read_table(ModesTable, "modes", document, path)
            models_table = read_table(ModelsTable, "models", document, path)
        except ConfigError as exc:
            layers.report(str(exc), f"{'the project' if project else 'your'} file's [modes] and [models] are ignored")
            continue
        new_modes, default = _apply_modes(config.modes, modes_table, path, project=project)
        config.modes = new_modes
        config.models = _apply_models(config.models, models_table, path, project=project)
        if default is not None and project:
            log.warning("langacp-modes: %s: [modes] default is only read from the user file; ignored", path)
        elif default is not None:
            config.default_mode = default
    if not config.modes:
        log.error("langacp-modes: every mode is disabled; using the built-in modes")
        config.modes = {m.id: m for m in DEFAULT_MODES}
    if config.default_mode not in config.modes:
        log.error("langacp-modes: the default mode %r does not exist; using the first mode", config.default_mode)
        config.default_mode = next(iter(config.modes))
    return config


_SHARED: dict[tuple[int, int], tuple[ConfigLayers, ModeConfig]] = {}
"""The configuration read from each layers object (kept alive here, so its id stays its own)."""
_KEPT = 16


def config_for(cwd: str, layers: ConfigLayers) -> ModeConfig:
    """:func:`load_config` of ``layers``, shared by every session given the same layers object.

    The core gives the sessions of a working directory one layers object while neither file
    changes (``langacp.api.layers_for``), so a changed file, or a mode or model registered
    since, is read again; problems in a file are logged once per reading.
    """
    key = (id(layers), _generation)
    found = _SHARED.get(key)
    if found is not None and found[0] is layers:
        return found[1]
    config = load_config(cwd, layers)
    _SHARED[key] = (layers, config)
    if len(_SHARED) > _KEPT:
        _SHARED.pop(next(iter(_SHARED)))
    return config
