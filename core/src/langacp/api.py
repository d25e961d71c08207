"""The public plugin API of langacp: everything a plugin (or a store driver) may import.

Plugins import from here (and their tests from :mod:`langacp.testing`) and nothing else of
langacp: every other module is internal and may change in any release. ``docs/plugins.md``
lists each name; a test keeps the two in step. Cheap to import: no LangChain, no ACP SDK.
"""

from __future__ import annotations

from langacp import __version__ as __version__
from langacp.compat.langgraph import DELTA_MARKERS, TASKS_CHANNEL, uses_delta
from langacp.config import (
    PROJECT_FILE,
    ConfigError,
    ConfigFileError,
    project_config_path,
    read_config,
    user_config_path,
)
from langacp.config_tables import ConfigModel, ConfigTable, Decision, Strings, config_value_error, read_table
from langacp.forms import FormError, check_form_answer, check_form_schema, form_options
from langacp.hookspecs import HOOK_NAMES, hookimpl
from langacp.off_loop import run_off_loop
from langacp.paths import PathError, PathOutsideError, SessionPaths, fd_path, is_inside
from langacp.plan_updates import MAIN_PLAN, plan_removed, plan_update, plans_by_id
from langacp.plugins import Plugins, hook_time_limit
from langacp.processes import killpg, stop_group, unwatch_group, watch_group, watching_new_groups
from langacp.stores import (
    LEASE_SCHEMA,
    Compaction,
    InvalidCursor,
    SessionRecord,
    SessionStore,
    StoreError,
    decode_cursor,
    encode_cursor,
    holder_is_gone,
    lease_statements,
    list_page,
    list_query,
    now_iso,
    record_from_json,
)
from langacp.target import DriverTarget, SessionSetup, Target, TargetDriver, TargetError
from langacp.terminals import AgentTerminal, open_terminal
from langacp.text_models import agent_text_chunk, tool_text_content
from langacp.tool_names import CHECK_KEY, current_session, left_out, session_tool
from langacp.trust import KIND_RISK, ConfigLayers, layers_for, load_layers, load_table, riskier
from langacp.types import (
    ElicitationRefused,
    ElicitResult,
    PermissionDecision,
    PermissionRule,
    PermissionVerdict,
    PromptCancelled,
    Question,
    SessionContext,
    ToolCallInfo,
    TurnOutcome,
    TurnPaused,
    model_call_messages,
    pending_tool_calls,
)

__all__ = [
    "CHECK_KEY",
    "DELTA_MARKERS",
    "HOOK_NAMES",
    "KIND_RISK",
    "LEASE_SCHEMA",
    "MAIN_PLAN",
    "PROJECT_FILE",
    "TASKS_CHANNEL",
    "AgentTerminal",
    "Compaction",
    "ConfigError",
    "ConfigFileError",
    "ConfigLayers",
    "ConfigModel",
    "ConfigTable",
    "Decision",
    "DriverTarget",
    "ElicitResult",
    "ElicitationRefused",
    "FormError",
    "InvalidCursor",
    "PathError",
    "PathOutsideError",
    "PermissionDecision",
    "PermissionRule",
    "PermissionVerdict",
    "Plugins",
    "PromptCancelled",
    "Question",
    "SessionContext",
    "SessionPaths",
    "SessionRecord",
    "SessionSetup",
    "SessionStore",
    "StoreError",
    "Strings",
    "Target",
    "TargetDriver",
    "TargetError",
    "ToolCallInfo",
    "TurnOutcome",
    "TurnPaused",
    "__version__",
    "agent_text_chunk",
    "check_form_answer",
    "check_form_schema",
    "config_value_error",
    "current_session",
    "decode_cursor",
    "encode_cursor",
    "fd_path",
    "form_options",
    "holder_is_gone",
    "hook_time_limit",
    "hookimpl",
    "is_inside",
    "killpg",
    "layers_for",
    "lease_statements",
    "left_out",
    "list_page",
    "list_query",
    "load_layers",
    "load_table",
    "model_call_messages",
    "now_iso",
    "open_terminal",
    "pending_tool_calls",
    "plan_removed",
    "plan_update",
    "plans_by_id",
    "project_config_path",
    "read_config",
    "read_table",
    "record_from_json",
    "riskier",
    "run_off_loop",
    "session_tool",
    "stop_group",
    "tool_text_content",
    "unwatch_group",
    "user_config_path",
    "uses_delta",
    "watch_group",
    "watching_new_groups",
]
