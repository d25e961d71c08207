"""The ``langacp`` command line: ``serve`` an agent over ACP, list ``plugins``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from langacp.providers import MODEL_ENV

__all__ = ["main"]


def _plugin_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        dest="plugin_options",
        action="append",
        default=[],
        metavar="NAME",
        help="'-p no:NAME' blocks plugin NAME; '-p NAME' loads it even with autoload off",
    )


def _serve_args(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``serve``, which ``check`` takes too."""
    parser.add_argument(
        "target",
        metavar="TARGET",
        nargs="?",
        help="module:attr or path/to/file.py:attr (default: the built-in default agent)",
    )
    parser.add_argument(
        "--model",
        help=f"an init_chat_model string such as openai:gpt-4.1 or anthropic:claude-sonnet-4-5 (sets {MODEL_ENV}; "
        "default: the offline demo model)",
    )
    parser.add_argument(
        "--store",
        default=None,
        help="session store URL: memory, sqlite (a file in the user data directory), sqlite:///path/to/file.db, "
        "postgres://user@host/db. Default: sqlite when langacp-sqlite is installed, else memory",
    )
    remote = parser.add_argument_group(
        "remote graphs",
        "With --remote URL, TARGET is an assistant id or graph name on that LangGraph Server "
        "(needs the 'remote' target driver: pip install langacp-remote). Sessions are the server's threads.",
    )
    remote.add_argument("--remote", metavar="URL", help="serve TARGET running on the LangGraph Server at URL")
    remote.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the server's API key (default: LANGGRAPH_API_KEY, then LANGSMITH_API_KEY)",
    )
    remote.add_argument(
        "--header",
        dest="headers",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header sent to the server (self-hosted auth); repeatable",
    )
    parser.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"], help="stderr log level"
    )
    parser.add_argument(
        "--recursion-limit", type=int, default=1000, help="LangGraph steps allowed per prompt (default 1000)"
    )
    _plugin_args(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="langacp", description="Serve LangChain / LangGraph agents over ACP.")
    parser.add_argument("--version", action="version", version=f"langacp {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser(
        "serve",
        help="serve an agent over stdin/stdout (what an editor runs)",
        description="Serve TARGET over the Agent Client Protocol on stdin/stdout. TARGET is "
        "module:attr or path/to/file.py:attr naming a per-session factory (recommended: plugins "
        "can add middleware and tools) or a compiled LangGraph graph. Without TARGET, langacp's "
        "default agent (file tools confined to the session's directories, read-only unless "
        "langacp-client-tools is installed, and a todo list) "
        f"with the model from --model / {MODEL_ENV}, or, when none is set, the OFFLINE DEMO MODEL: "
        "canned, deterministic answers to 'list files', 'read README.md', 'search for TODO', "
        "'make a plan for ...', no API key needed, not a language model.",
    )
    _serve_args(serve)
    serve.add_argument(
        "--login",
        action="store_true",
        help="ask for the model's API key on the terminal, store it, exit (what an editor's terminal login runs)",
    )

    for name, text in (
        ("login", "ask for the model's API key and store it (keyring, or a 0600 file in the user config dir)"),
        ("logout", "remove the model's stored API key"),
    ):
        key_parser = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        key_parser.add_argument("--model", help=f"the model (default: {MODEL_ENV})")

    chat = sub.add_parser(
        "chat",
        help="talk to an agent in the terminal: TARGET (default: the built-in default agent), or -- AGENT COMMAND",
        description="A terminal ACP client. It serves TARGET (module:attr or path/to/file.py:attr, as 'langacp "
        "serve' takes it, with the same serve options) or, without TARGET, the built-in default agent (with no "
        "--model / LANGACP_MODEL that agent runs the OFFLINE DEMO MODEL, which answers 'list files', 'read "
        "README.md', 'search for TODO', 'make a plan for ...' without an API key); after --, any other ACP agent "
        "command. It streams the agent's answers, thoughts, tool calls, plans and permission requests. Ctrl-C "
        "cancels the running answer; a second Ctrl-C exits; so do /exit (or /quit) and Ctrl-D at the prompt. /mode "
        "shows or sets the session mode. With --prompt it runs one turn and exits with the stop "
        "reason: 0 end_turn, 3 refusal, 4 max_tokens, 5 max_turn_requests, 130 cancelled, 1 error.",
        usage="langacp chat [options] [TARGET] [serve options] | langacp chat [options] -- AGENT COMMAND ...",
    )
    _serve_args(chat)
    chat.add_argument("--prompt", metavar="TEXT", help="send TEXT, print the answer, exit with the stop reason")
    chat.add_argument("--json", action="store_true", help="print every update as a JSON line (stdout)")
    answer = chat.add_mutually_exclusive_group()
    answer.add_argument("--yes", action="store_true", help="allow every permission request")
    answer.add_argument("--no", action="store_true", help="reject every permission request")
    chat.add_argument("--cwd", help="the session's working directory (default: the current directory)")
    chat.add_argument("-v", "--verbose", action="store_true", help="show the agent's stderr")
    sessions = chat.add_mutually_exclusive_group()
    sessions.add_argument("--list", action="store_true", help="list the agent's sessions of this directory and exit")
    sessions.add_argument(
        "--resume", metavar="ID|last", help="continue session ID, or the last one of this directory (session/load)"
    )

    attach = sub.add_parser(
        "attach",
        help="attach to an agent a langacp.client Gateway runs (what an editor runs)",
        description="Pipe stdin/stdout to the Unix socket of connection NAME of a running "
        "langacp.client Gateway, so an editor can use it as its agent command: it sees the agent's "
        "updates, answers its permission requests and serves its fs / terminal calls until it exits.",
    )
    attach.add_argument("name", metavar="NAME", help="the connection's name in the ConnectionManager")
    attach.add_argument("--dir", help="the gateway's socket directory (default: $XDG_RUNTIME_DIR/langacp)")

    completion = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description="Print a completion script: 'eval \"$(langacp completion bash)\"' in ~/.bashrc, "
        "'eval \"$(langacp completion zsh)\"' in ~/.zshrc, 'langacp completion fish | source' in fish's config.",
    )
    completion.add_argument("shell", choices=["bash", "zsh", "fish"])

    editors = sub.add_parser(
        "editors",
        help="print the editor configuration that starts this agent",
        description="Print the configuration snippet that makes an editor start 'langacp serve' on this machine "
        "(absolute paths, or uvx with --uvx): Zed settings.json, JetBrains ~/.jetbrains/acp.json, Neovim "
        "CodeCompanion, Emacs agent-shell, acpx ~/.acpx/config.json. See docs/editors.md.",
    )
    editors_sub = editors.add_subparsers(dest="editors_command", required=True)
    show = editors_sub.add_parser("print", help="print the snippet for EDITOR")
    show.add_argument(
        "editor",
        choices=["zed", "jetbrains", "neovim", "emacs", "acpx"],
        metavar="EDITOR",
        help="zed, jetbrains, neovim, emacs or acpx",
    )
    show.add_argument("target", metavar="TARGET", nargs="?", help="what to serve (default: the built-in agent)")
    show.add_argument("--model", help="the default agent's model (an init_chat_model string)")
    show.add_argument("--store", help="session store URL (see 'langacp serve --help')")
    show.add_argument("--name", default="langacp", help="the agent's name in the editor (default: langacp)")
    show.add_argument("--uvx", action="store_true", help="run langacp[all] through uvx instead of this installation")

    check = sub.add_parser(
        "check",
        help="check a setup without serving: Python, packages, plugins, target, store, model, MCP commands",
        description="Run the checks of 'langacp serve' with the same arguments, and more (import the target, "
        "open the store, find MCP server commands in the config files), without serving. One line per check; "
        "each problem says how to fix it. Exit status 0 when everything works, 1 otherwise.",
    )
    _serve_args(check)

    sessions_parser = sub.add_parser("sessions", help="maintain the stored sessions")
    sessions_sub = sessions_parser.add_subparsers(dest="sessions_command", required=True)
    compact = sessions_sub.add_parser(
        "compact",
        help="delete the checkpoints no session needs any more and shrink the database",
        description="Keep each session's latest checkpoint, delete the older ones and give the space back "
        "to the file system. Safe while agents use the store.",
    )
    compact.add_argument("--store", default=None, help="session store URL (default: the one 'langacp serve' uses)")

    plugins = sub.add_parser("plugins", help="list plugins: name, distribution, version, hooks, status")
    plugins.add_argument("--json", action="store_true", help="print JSON")
    _plugin_args(plugins)
    return parser


def _version() -> str:
    from langacp import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``langacp`` command; its exit status. A closed stdout ends it quietly with 141."""
    from langacp.pipes import EXIT_STDOUT_CLOSED, stdout_closed

    try:
        try:
            return _main(argv)
        finally:
            if not sys.stdout.closed:  # a command may have closed it (attach, when its editor goes)
                sys.stdout.flush()  # here, not at interpreter exit, where a closed pipe prints a traceback
    except BrokenPipeError:
        stdout_closed()
        return EXIT_STDOUT_CLOSED


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    agent_command: list[str] = []
    if words[:1] == ["chat"] and "--" in words:  # `chat [options] -- AGENT COMMAND ...`: the rest is the command's
        at = words.index("--")
        words, agent_command = words[:at], words[at + 1 :]
    args = parser.parse_args(words)
    if args.command == "chat":
        from langacp.chat.launch import chat_command

        return chat_command(args, agent_command)
    if args.command == "editors":
        return _editors(args)
    if args.command == "attach":
        return _attach(args)
    if args.command == "sessions":
        from langacp.stores import compaction

        return compaction.main(args.store)
    if args.command == "completion":
        from langacp.completion import completion_script

        sys.stdout.write(completion_script(parser, args.shell))
        return 0
    if args.command in ("login", "logout"):
        from langacp import auth

        model = args.model or os.environ.get(MODEL_ENV)
        return auth.login(model) if args.command == "login" else auth.logout(model)
    from langacp.plugins import PluginNameError, parse_plugin_options

    blocked, enabled = parse_plugin_options(args.plugin_options)
    try:
        return _with_plugins(args, blocked, enabled)
    except PluginNameError as exc:
        print(f"langacp: {exc}", file=sys.stderr)
        return 2


def _with_plugins(args: argparse.Namespace, blocked: set[str], enabled: set[str]) -> int:
    """``serve``, ``check`` and ``plugins``, the commands that load plugins."""
    if args.command == "check":
        from langacp.doctor import run_check

        return run_check(args, blocked, enabled)
    if args.command == "serve":
        from langacp.server import serve
        from langacp.startup import EXIT_BAD_SETUP, check_model, format_problems

        target = args.target
        if args.remote:
            return _serve_remote(args, blocked, enabled)
        if args.model:
            os.environ[MODEL_ENV] = args.model
        if args.login:
            from langacp import auth

            return auth.login(os.environ.get(MODEL_ENV))
        if target is None:
            problems = check_model(os.environ.get(MODEL_ENV))
            if problems:
                print(format_problems(problems), file=sys.stderr)
                return EXIT_BAD_SETUP
            from langacp.default_agent import DEFAULT_TARGET

            target = DEFAULT_TARGET
        return serve(
            target,
            store=args.store,
            blocked=blocked,
            enabled=enabled,
            log_level=args.log_level,
            recursion_limit=args.recursion_limit,
        )
    if args.command == "plugins":
        from langacp.plugin_listing import list_plugins

        return list_plugins(blocked, enabled, as_json=args.json)
    return 2


def _serve_remote(args: argparse.Namespace, blocked: set[str], enabled: set[str]) -> int:
    """``serve --remote URL GRAPH``: checked at once (one line and exit 2 if it cannot work), then served."""
    from langacp.server import serve
    from langacp.target import DriverTarget, TargetError, load_target_driver

    if not args.target:
        print("langacp: --remote URL needs the GRAPH to serve (an assistant id or graph name)", file=sys.stderr)
        return 2
    options = {"url": args.remote, "api_key_env": args.api_key_env, "headers": list(args.headers)}
    target = DriverTarget("remote", args.target, options)
    try:
        load_target_driver("remote").check(target)
    except TargetError as exc:
        print(f"langacp: {exc}", file=sys.stderr)
        return 2
    return serve(
        target,
        store=args.store,
        blocked=blocked,
        enabled=enabled,
        log_level=args.log_level,
        recursion_limit=args.recursion_limit,
    )


def _editors(args: argparse.Namespace) -> int:
    from langacp.editors import EditorError, agent_command, snippet

    serve_args = ["--store", args.store] if args.store else []
    try:
        agent = agent_command(args.target, model=args.model, serve_args=serve_args, uvx=args.uvx, name=args.name)
        print(snippet(args.editor, agent))
    except EditorError as exc:
        print(f"langacp editors: {exc}", file=sys.stderr)
        return 2
    return 0


def _attach(args: argparse.Namespace) -> int:
    import asyncio

    from langacp.client.gateway import attach, socket_path

    try:
        path = socket_path(args.name, args.dir)
    except ValueError as exc:
        print(f"langacp attach: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(attach(path))


if __name__ == "__main__":
    raise SystemExit(main())
