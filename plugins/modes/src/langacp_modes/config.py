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
from typing import Any, cast

from langacp.api import (
    PROJECT_FILE,
    ConfigFileError,
    ConfigLayers,
    PermissionDecision,
    load_layers,
    project_config_path,
    read_config,
    user_config_path,
)
from langacp_modes.mode import DEFAULT_MODE_ID, DEFAULT_MODES, Mode, ModeRule

__all__ = [
    "PROJECT_FILE",
    "ConfigError",
    "ModeConfig",
    "ModelChoice",
    "config_for",
    "load_config",
    "register_mode",
    "register_model",
    "user_config_path",
]

log = logging.getLogger("langacp_modes")

_MODE_KEYS = {"name", "description", "system_prompt", "tools", "kinds", "permissions", "enabled"}
_CHOICE_KEYS = {"id", "name", "description", "model", "factory", "thought_levels", "thought_setting"}

_registered_modes: dict[str, Mode] = {}
_registered_models: dict[str, ModelChoice] = {}
_generation = 0
"""Bumped by :func:`register_mode` and :func:`register_model`: configurations read before are read again."""


class ConfigError(ValueError):
    """A ``[modes]`` or ``[models]`` table is invalid; the message names the file and the key."""


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


def _read(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        return read_config(path)
    except ConfigFileError as exc:
        raise ConfigError(f"cannot read it: {exc}") from exc


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings")
    return tuple(value)


def _rules(table: Any, where: str, *, project: bool) -> tuple[ModeRule, ...]:
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - {"default", "kinds", "tools"})
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (known: default, kinds, tools)")
    found: list[tuple[str, str | None, str | None]] = []
    if "default" in table:
        found.append((table["default"], None, "*"))
    for key, attribute in (("kinds", "kind"), ("tools", "tool")):
        entries = table.get(key, {})
        if not isinstance(entries, dict):
            raise ConfigError(f'{where}.{key} must be a table of "pattern" = "allow" | "ask" | "deny"')
        for pattern, decision in entries.items():
            found.append((decision, pattern if attribute == "tool" else None, pattern if attribute == "kind" else None))
    rules = []
    for decision, tool, kind in found:
        if decision not in ("allow", "ask", "deny"):
            raise ConfigError(f'{where}: {decision!r} is not "allow", "ask" or "deny"')
        if project and decision == "allow":
            log.warning("langacp-modes: %s: a project file may only tighten; its allow rule is ignored", where)
            continue
        rules.append(ModeRule(cast(PermissionDecision, decision), tool=tool, kind=kind))
    return tuple(rules)


def _apply_modes(
    modes: dict[str, Mode], table: dict[str, Any], path: Path, *, project: bool
) -> tuple[dict[str, Mode], str | None]:
    modes = dict(modes)
    default: str | None = None
    for key, value in table.items():
        where = f"{path}: [modes.{key}]"
        if key == "default":
            if not isinstance(value, str):
                raise ConfigError(f"{path}: [modes] default must be a mode id")
            default = value
        elif _mode_table(value, where).get("enabled", True) is False:
            modes.pop(key, None)
        else:
            mode = modes.get(key) or Mode(key, key.replace("_", " ").title())
            modes[key] = replace(mode, **_mode_changes(mode, value, where, project=project))
    return modes, default


def _mode_table(value: Any, where: str) -> dict[str, Any]:
    """``value`` checked to be a ``[modes.ID]`` table of known keys."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(value) - _MODE_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_MODE_KEYS))})")
    return value


def _mode_changes(mode: Mode, value: dict[str, Any], where: str, *, project: bool) -> dict[str, Any]:
    """What a ``[modes.ID]`` table changes in ``mode``."""
    changes: dict[str, Any] = {}
    for text in ("name", "description", "system_prompt"):
        if text in value:
            if not isinstance(value[text], str):
                raise ConfigError(f"{where} {text} must be a string")
            changes[text] = value[text]
    for globs in ("tools", "kinds"):
        if globs in value:
            changes[globs] = _strings(value[globs], f"{where} {globs}")
    if project and ("tools" in changes or "kinds" in changes) and mode.restricted:
        changes.update(_narrowed(mode, changes))
    if "permissions" in value:
        changes["rules"] = (*mode.rules, *_rules(value["permissions"], f"{where}.permissions", project=project))
    return changes


def _narrowed(mode: Mode, changes: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """A project's new tools and kinds for a restricted mode: it may narrow what runs, never widen it."""
    old_tools, old_kinds = set(mode.tools or ()), set(mode.kinds or ())
    return {
        "tools": tuple(t for t in changes.get("tools", mode.tools or ()) if t in old_tools),
        "kinds": tuple(k for k in changes.get("kinds", mode.kinds or ()) if k in old_kinds),
    }


def _choice(entry: Any, where: str, *, project: bool) -> ModelChoice | None:
    if isinstance(entry, str):
        return ModelChoice(entry, entry, model=entry)
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: a choice is a model name or a table")
    unknown = sorted(set(entry) - _CHOICE_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_CHOICE_KEYS))})")
    model, factory = entry.get("model"), entry.get("factory")
    if (model is None) == (factory is None) or not isinstance(model or factory, str):
        raise ConfigError(f"{where}: a choice needs exactly one of model (a model name) or factory (module:attr)")
    if project and factory is not None:
        log.warning("langacp-modes: %s: a project file may not name model factories; ignored", where)
        return None
    choice_id = entry.get("id", model or factory)
    levels = _strings(entry.get("thought_levels", []), f"{where} thought_levels")
    return ModelChoice(
        id=str(choice_id),
        name=str(entry.get("name", choice_id)),
        model=model,
        factory=factory,
        description=entry.get("description"),
        thought_levels=levels,
        thought_setting=str(entry.get("thought_setting", "reasoning_effort")),
    )


def _apply_models(models: dict[str, ModelChoice], table: Any, path: Path, *, project: bool) -> dict[str, ModelChoice]:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [models] must be a table")
    unknown = sorted(set(table) - {"choices"})
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [models]: {', '.join(unknown)} (known: choices)")
    choices = table.get("choices", [])
    if not isinstance(choices, list):
        raise ConfigError(f"{path}: [models] choices must be a list")
    models = dict(models)
    for index, entry in enumerate(choices):
        where = f"{path}: [models] choices[{index}]"
        choice = _choice(entry, where, project=project)
        if choice is None:
            continue
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
    layers = layers if layers is not None else load_layers(cwd)
    if layers.user_error is not None:
        log.error(
            "langacp-modes: cannot read it: %s. The file's modes and models are ignored until it is fixed.",
            layers.user_error,
        )
    modes = {m.id: m for m in DEFAULT_MODES} | dict(_registered_modes)
    config = ModeConfig(modes=modes, models=dict(_registered_models))
    sources = (
        (layers.user, layers.user_path or user_config_path(), False),
        (layers.project, layers.project_path or project_config_path(cwd), not layers.trusted),
    )
    for document, path, project in sources:
        try:
            if not document:
                continue
            new_modes, default = config.modes, None
            if "modes" in document:
                if not isinstance(document["modes"], dict):
                    raise ConfigError(f"{path}: [modes] must be a table")
                new_modes, default = _apply_modes(config.modes, document["modes"], path, project=project)
            new_models = config.models
            if "models" in document:
                new_models = _apply_models(config.models, document["models"], path, project=project)
        except ConfigError as exc:
            log.error("langacp-modes: %s. The file's modes and models are ignored until it is fixed.", exc)
            continue
        config.modes, config.models = new_modes, new_models
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
