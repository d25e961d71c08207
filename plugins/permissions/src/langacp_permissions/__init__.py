"""langacp-permissions: ask before acting, remember what the user said.

A policy (rules by tool-name glob and by kind: allow / ask / deny) from the user's and the
project's configuration, permission requests with allow/reject once/always, remembered
answers that persist with the session, and ``HumanInTheLoopMiddleware`` interrupts turned
into permission requests. See ``docs/permissions.md``.

From code (a mode, an embedding application)::

    from langacp_permissions import Rule, configured_policy, set_policy

    set_policy(session, configured_policy(session).with_rules(Rule("deny", kind="edit")))
"""

from __future__ import annotations

from langacp_permissions.config import ConfigError, load_policy, user_config_path
from langacp_permissions.policy import DEFAULT_RULES, Policy, Rule, Ruling
from langacp_permissions.scope import Scope, scope_of
from langacp_permissions.session import configured_policy, policy_for, set_policy

__all__ = [
    "DEFAULT_RULES",
    "ConfigError",
    "Policy",
    "Rule",
    "Ruling",
    "Scope",
    "configured_policy",
    "load_policy",
    "policy_for",
    "scope_of",
    "set_policy",
    "user_config_path",
]
