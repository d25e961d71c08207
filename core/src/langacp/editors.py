"""``langacp editors print EDITOR``: the editor configuration that starts this machine's ``langacp serve``.

Every snippet names the command by absolute path (this installation's ``langacp``), or runs it
through ``uvx`` with a pinned version; a module TARGET importable only from the current
directory gets that directory as an absolute ``PYTHONPATH``, a file TARGET an absolute path.
Editors start agents from a directory of their choosing, so nothing may depend on the cwd.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from langacp._version import __version__

__all__ = ["EDITORS", "AgentCommand", "EditorError", "agent_command", "snippet", "uvx_package"]

EDITORS = ("zed", "jetbrains", "neovim", "emacs", "acpx")


class EditorError(Exception):
    """The snippet cannot be made (an unknown editor, a TARGET that cannot be found)."""


@dataclass
class AgentCommand:
    """How an editor starts the agent: a program, its arguments, extra environment."""

    command: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    name: str = "langacp"


def _langacp_executable() -> list[str]:
    """This installation's ``langacp`` script, else this interpreter running ``-m langacp.cli``; both absolute."""
    scripts = Path(sys.executable).parent
    for candidate in (scripts / "langacp", scripts / "langacp.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "langacp.cli"]


def _resolve_target(target: str, cwd: Path) -> tuple[str, dict[str, str]]:
    """TARGET made independent of the directory the editor starts the agent in, and the env it needs."""
    module_part, sep, attr = target.partition(":")
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        path = (cwd / Path(module_part).expanduser()).resolve()
        if not path.is_file():
            raise EditorError(f"no such file: {path}")
        return f"{path}{sep}{attr}", {}
    top = module_part.split(".")[0]
    outside = [p for p in sys.path if p not in ("", ".") and Path(p).resolve() != cwd.resolve()]
    if _find(top, outside):
        return target, {}
    if _find(top, [str(cwd)]):
        return target, {"PYTHONPATH": str(cwd.resolve())}
    raise EditorError(
        f"cannot find the module {top!r} here or in {cwd}: install it, or name a file (path/to/file.py:attr)"
    )


def _find(module: str, path: list[str]) -> bool:
    saved = sys.path[:]
    sys.path[:] = path
    try:
        importlib.invalidate_caches()
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
    finally:
        sys.path[:] = saved


def agent_command(
    target: str | None = None,
    *,
    model: str | None = None,
    serve_args: Sequence[str] = (),
    uvx: bool = False,
    cwd: Path | None = None,
    name: str = "langacp",
) -> AgentCommand:
    """The command that serves TARGET (default: the built-in agent) on this machine.

    With ``uvx``, langacp runs from its published distributions (``langacp[all]`` at this
    version, plus the extra of ``model``'s provider) in an environment uvx makes: a TARGET must
    then be a file, whose imports that environment has.
    """
    env: dict[str, str] = {}
    args: list[str] = ["serve"]
    if target:
        resolved, env = _resolve_target(target, (cwd or Path.cwd()).absolute())
        if uvx and resolved == target and not Path(target.partition(":")[0]).is_absolute():
            raise EditorError(
                f"with --uvx the module {target.partition(':')[0]!r} is not in uvx's environment: "
                "name the TARGET by file (path/to/file.py:attr), or leave out --uvx"
            )
        if uvx and env:
            raise EditorError("with --uvx, name the TARGET by file (path/to/file.py:attr)")
        args.append(resolved)
    if model:
        args += ["--model", model]
    args.extend(serve_args)
    if uvx:
        return AgentCommand(shutil.which("uvx") or "uvx", [uvx_package(model), *args], env, name)
    base = _langacp_executable()
    return AgentCommand(base[0], [*base[1:], *args], env, name)


def uvx_package(model: str | None = None) -> str:
    """``langacp[all]==VERSION``, with the extra that installs ``model``'s provider package when langacp knows it."""
    extras = ["all"]
    if model:
        from langacp.providers import PROVIDERS, provider_of

        provider = PROVIDERS.get(provider_of(model) or "")
        if provider is not None and provider.extra:
            extras.append(provider.extra)
    return f"langacp[{','.join(extras)}]=={__version__}"


def _lua(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string literal is a valid Lua string literal
    if isinstance(value, list):
        return "{ " + ", ".join(_lua(v) for v in value) + " }"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"[{_lua(k)}] = {_lua(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def _elisp(value: str) -> str:
    return json.dumps(value)  # backslash and double quote escaped as Emacs Lisp reads them


def snippet(editor: str, agent: AgentCommand) -> str:
    """The configuration snippet for ``editor`` that starts ``agent``."""
    if editor == "zed":
        server = {"type": "custom", "command": agent.command, "args": agent.args, "env": agent.env}
        return json.dumps({"agent_servers": {agent.name: server}}, indent=2)
    if editor == "jetbrains":
        server = {"command": agent.command, "args": agent.args, "env": agent.env}
        return json.dumps({"agent_servers": {agent.name: server}}, indent=2)
    if editor == "acpx":
        command, args = agent.command, agent.args
        if agent.env:  # acpx's config has no env field: env(1) sets it
            command, args = (
                shutil.which("env") or "/usr/bin/env",
                [*(f"{k}={v}" for k, v in agent.env.items()), command, *args],
            )
        return json.dumps({"agents": {agent.name: {"command": command, "args": args}}}, indent=2)
    if editor == "neovim":
        return _codecompanion(agent)
    if editor == "emacs":
        return _agent_shell(agent)
    raise EditorError(f"unknown editor {editor!r}: one of {', '.join(EDITORS)}")


def _codecompanion(agent: AgentCommand) -> str:
    lines = [
        "-- CodeCompanion (olimorris/codecompanion.nvim): langacp as an ACP adapter, the chat's default.",
        'require("codecompanion").setup({',
        "  adapters = {",
        "    acp = {",
        f"      {agent.name} = function()",
        '        return require("codecompanion.adapters").extend("goose", {',
        f"          name = {_lua(agent.name)},",
        f"          formatted_name = {_lua(agent.name)},",
        f"          commands = {{ default = {_lua([agent.command, *agent.args])} }},",
    ]
    if agent.env:
        lines.append(f"          env = {_lua(agent.env)},")
    lines += [
        "        })",
        "      end,",
        "    },",
        "  },",
        f"  interactions = {{ chat = {{ adapter = {_lua(agent.name)} }} }},",
        "})",
    ]
    return "\n".join(lines)


def _agent_shell(agent: AgentCommand) -> str:
    params = " ".join(_elisp(a) for a in agent.args)
    env = " ".join(f"{_elisp(k)} {_elisp(v)}" for k, v in agent.env.items())
    environment = f"(agent-shell-make-environment-variables {env} :inherit-env t)" if env else "nil"
    return "\n".join(
        [
            ";; agent-shell (xenodium/agent-shell): langacp as an agent; M-x agent-shell and pick it.",
            "(with-eval-after-load 'agent-shell",
            "  (add-to-list 'agent-shell-agent-configs",
            "               (agent-shell-make-agent-config",
            f"                :identifier '{agent.name}",
            f"                :mode-line-name {_elisp(agent.name)}",
            f"                :buffer-name {_elisp(agent.name)}",
            f"                :shell-prompt {_elisp(agent.name + '> ')}",
            f"                :shell-prompt-regexp {_elisp(agent.name + '> ')}",
            "                :client-maker (lambda (buffer)",
            "                                (agent-shell--make-acp-client",
            f"                                 :command {_elisp(agent.command)}",
            f"                                 :command-params (list {params})",
            f"                                 :environment-variables {environment}",
            "                                 :context-buffer buffer)))))",
        ]
    )
