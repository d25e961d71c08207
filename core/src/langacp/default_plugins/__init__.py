"""The core's own hook implementations: ordinary plugin modules, registered ``trylast``.

Any installed plugin that answers a mapper hook overrides them; uninstalling it restores them.
"""

from __future__ import annotations

from types import ModuleType

from langacp.default_plugins import auth, client_prompt, content, permissions, tools, trust, turns

DEFAULT_PLUGINS: list[tuple[str, ModuleType]] = [
    ("langacp.default.tools", tools),
    ("langacp.default.content", content),
    ("langacp.default.permissions", permissions),
    ("langacp.default.turns", turns),
    ("langacp.default.auth", auth),
    ("langacp.default.trust", trust),
    ("langacp.default.client_prompt", client_prompt),
]
"""(name, module) of every built-in plugin, in registration order."""
