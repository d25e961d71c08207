"""The standard library's private names langacp uses (``argparse``)."""

from __future__ import annotations

import argparse

__all__ = ["argparse_actions", "argparse_subcommand_helps"]


def argparse_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The actions of ``parser`` (``_actions``), its options and sub-command groups, for shell completion."""
    return list(parser._actions)


def argparse_subcommand_helps(action: argparse.Action) -> dict[str, str] | None:
    """``{command: help}`` of a sub-parsers action (``_SubParsersAction._choices_actions``), else ``None``."""
    if not isinstance(action, argparse._SubParsersAction):
        return None
    return {a.dest: a.help or "" for a in action._choices_actions}
