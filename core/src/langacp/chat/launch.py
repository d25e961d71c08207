"""``langacp chat``'s command line: check what it is to serve, then run the chat on it.

Without ``-- AGENT COMMAND`` the chat serves TARGET (or the default agent) itself, through a
``langacp serve`` process given the serve options the user gave.
"""

from __future__ import annotations

import argparse
import os
import sys

from langacp.providers import MODEL_ENV

__all__ = ["chat_command", "served_options"]


def chat_command(args: argparse.Namespace, agent_command: list[str]) -> int:
    """Run ``langacp chat`` with the parsed ``args`` (``agent_command``: what follows ``--``); its exit status."""
    from langacp.chat.app import ChatOptions, run_chat

    served = served_options(args)
    if agent_command and (args.target or served):
        print(
            "langacp chat: TARGET and serve options are for the agent chat serves itself; "
            "pass them to your AGENT COMMAND after -- instead",
            file=sys.stderr,
        )
        return 2
    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        print(f"langacp chat: no such directory: {cwd}", file=sys.stderr)
        return 2
    if not agent_command:
        from langacp.startup import EXIT_BAD_SETUP, check_model, check_target, format_problems

        problems = check_model(args.model or os.environ.get(MODEL_ENV)) if args.target is None or args.model else []
        if args.target and not args.remote:
            problems += check_target(args.target)[0]
        if problems:
            print(format_problems(problems, "langacp chat"), file=sys.stderr)
            return EXIT_BAD_SETUP
    options = ChatOptions(
        command=agent_command or [sys.executable, "-m", "langacp.cli", "serve", *served],
        prompt=args.prompt,
        json=args.json,
        policy="yes" if args.yes else "no" if args.no else "ask",
        verbose=args.verbose,
        cwd=cwd,
        resume=args.resume,
        list_sessions=args.list,
    )
    return run_chat(options)


def served_options(args: argparse.Namespace) -> list[str]:
    """``langacp serve``'s arguments for what ``chat`` serves itself (TARGET and the serve options given)."""
    words: list[str] = [args.target] if args.target else []
    for flag, value in (
        ("--model", args.model),
        ("--store", args.store),
        ("--remote", args.remote),
        ("--api-key-env", args.api_key_env),
    ):
        if value:
            words += [flag, value]
    for header in args.headers:
        words += ["--header", header]
    if args.log_level != "warning":
        words += ["--log-level", args.log_level]
    if args.recursion_limit != 1000:
        words += ["--recursion-limit", str(args.recursion_limit)]
    for option in args.plugin_options:
        words += ["-p", option]
    return words
