"""langacp-modes: session modes, and the mode, model and thought-level config options.

Modes (``agentic``, ``interactive``, ``readonly``, ``planning`` and your own) each add to the
system prompt, limit the tools that may run and add permission rules. See ``docs/modes.md``.

From code (for example in the module of your agent)::

    from langacp_modes import Mode, ModeRule, register_mode

    register_mode(Mode("review", "Review", "Reads and comments", kinds=("read", "search")))
"""

from __future__ import annotations

from langacp_modes.config import ConfigError, ModeConfig, ModelChoice, load_config, register_mode, register_model
from langacp_modes.mode import BASE_RULES, DEFAULT_MODE_ID, DEFAULT_MODES, Mode, ModeRule
from langacp_modes.session import current_mode, switch_mode

__all__ = [
    "BASE_RULES",
    "DEFAULT_MODES",
    "DEFAULT_MODE_ID",
    "ConfigError",
    "Mode",
    "ModeConfig",
    "ModeRule",
    "ModelChoice",
    "current_mode",
    "load_config",
    "register_mode",
    "register_model",
    "switch_mode",
]
