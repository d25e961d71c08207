"""``langacp completion bash|zsh|fish``: completion scripts generated from the argparse parser.

The scripts are static (no Python runs at each Tab): subcommands, their options, and the
choices of options and positionals that have them.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass, field

from langacp.compat.stdlib import argparse_actions, argparse_subcommand_helps

__all__ = ["completion_script"]


@dataclass
class _Option:
    flags: list[str]
    help: str
    choices: list[str] | None
    takes_value: bool


@dataclass
class _Command:
    name: str
    help: str
    options: list[_Option] = field(default_factory=list)
    positional_choices: list[str] = field(default_factory=list)


def _commands(parser: argparse.ArgumentParser) -> tuple[list[_Option], list[_Command]]:
    top: list[_Option] = []
    commands: list[_Command] = []
    for action in argparse_actions(parser):
        helps = argparse_subcommand_helps(action)
        if helps is not None and isinstance(action.choices, dict):
            for name, sub in action.choices.items():
                command = _Command(name, helps.get(name, ""))
                for sub_action in argparse_actions(sub):
                    choices = [str(c) for c in sub_action.choices] if sub_action.choices else None
                    if sub_action.option_strings:
                        takes_value = sub_action.nargs != 0
                        command.options.append(
                            _Option(list(sub_action.option_strings), sub_action.help or "", choices, takes_value)
                        )
                    elif choices:
                        command.positional_choices.extend(choices)
                commands.append(command)
        elif action.option_strings:
            top.append(_Option(list(action.option_strings), action.help or "", None, action.nargs != 0))
    return top, commands


def _bash(parser: argparse.ArgumentParser) -> str:
    top, commands = _commands(parser)
    prog = parser.prog
    function = f"_{prog.replace('-', '_')}_complete"
    top_words = " ".join([c.name for c in commands] + [f for o in top for f in o.flags])
    cases = []
    value_cases = []
    for command in commands:
        words = [f for o in command.options for f in o.flags]
        cases.append(
            f"        {command.name}) opts={shlex.quote(' '.join(words))}; "
            f"positional={shlex.quote(' '.join(command.positional_choices))};;"
        )
        for option in command.options:
            if option.choices:
                for flag in option.flags:
                    value_cases.append(
                        f"        {command.name}:{flag}) "
                        f'COMPREPLY=($(compgen -W {shlex.quote(" ".join(option.choices))} -- "$cur")); return;;'
                    )
    names = "|".join(c.name for c in commands)
    return f"""# {prog} completion for bash (eval "$({prog} completion bash)")
{function}() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" sub="" i opts="" positional=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            {names}) sub="${{COMP_WORDS[i]}}"; break;;
        esac
    done
    if [[ -z "$sub" ]]; then
        COMPREPLY=($(compgen -W {shlex.quote(top_words)} -- "$cur"))
        return
    fi
    case "$sub:$prev" in
{chr(10).join(value_cases)}
    esac
    case "$sub" in
{chr(10).join(cases)}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ -n "$positional" ]]; then
        COMPREPLY=($(compgen -W "$positional" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o default -F {function} {prog}
"""


def _zsh(parser: argparse.ArgumentParser) -> str:
    return (
        f'# {parser.prog} completion for zsh (eval "$({parser.prog} completion zsh)")\n'
        "autoload -U +X compinit && compinit\n"
        "autoload -U +X bashcompinit && bashcompinit\n" + _bash(parser).split("\n", 1)[1]
    )


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(parser: argparse.ArgumentParser) -> str:
    top, commands = _commands(parser)
    prog = parser.prog
    lines = [f"# {prog} completion for fish ({prog} completion fish | source)", f"complete -c {prog} -f"]
    for command in commands:
        lines.append(f"complete -c {prog} -n __fish_use_subcommand -a {command.name} -d {_fish_quote(command.help)}")
    for option in top:
        lines.append(f"complete -c {prog} -n __fish_use_subcommand {_fish_flags(option)}")
    for command in commands:
        condition = f"-n {_fish_quote('__fish_seen_subcommand_from ' + command.name)}"
        for option in command.options:
            lines.append(f"complete -c {prog} {condition} {_fish_flags(option)}")
        if command.positional_choices:
            choices = " ".join(command.positional_choices)
            lines.append(f"complete -c {prog} {condition} -xa {_fish_quote(choices)}")
        elif command.name in ("serve", "chat"):
            lines.append(f"complete -c {prog} {condition} -F")
    return "\n".join(lines) + "\n"


def _fish_flags(option: _Option) -> str:
    parts = []
    for flag in option.flags:
        if flag.startswith("--"):
            parts.append(f"-l {flag[2:]}")
        else:
            parts.append(f"-s {flag[1:]}")
    if option.choices:
        parts.append(f"-xa {_fish_quote(' '.join(option.choices))}")
    elif option.takes_value:
        parts.append("-r")
    if option.help:
        parts.append(f"-d {_fish_quote(option.help.replace('%%', '%'))}")
    return " ".join(parts)


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser``'s command for ``shell`` (bash, zsh or fish)."""
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](parser)
