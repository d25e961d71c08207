"""The ``langacp`` command line: ``serve`` an agent over ACP, list ``plugins``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="langacp", description="Serve LangChain / LangGraph agents over ACP.")
    parser.add_argument("--version", action="version", version=f"langacp {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser(
        "serve",
        help="serve an agent over stdin/stdout (what an editor runs)",
        description="Serve TARGET over the Agent Client Protocol on stdin/stdout. TARGET is "
        "module:attr or path/to/file.py:attr naming a per-session factory (recommended: plugins "
        "can add middleware and tools) or a compiled LangGraph graph.",
    )
    serve.add_argument("target", metavar="TARGET", help="module:attr or path/to/file.py:attr")
    serve.add_argument(
        "--store",
        default=None,
        help="session store URL: memory, sqlite (a file in the user data directory), sqlite:///path/to/file.db, "
        "postgres://user@host/db. Default: sqlite when langacp-sqlite is installed, else memory",
    )
    serve.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"], help="stderr log level"
    )
    serve.add_argument(
        "--recursion-limit", type=int, default=1000, help="LangGraph steps allowed per prompt (default 1000)"
    )
    _plugin_args(serve)

    plugins = sub.add_parser("plugins", help="list plugins: name, distribution, version, hooks, status")
    plugins.add_argument("--json", action="store_true", help="print JSON")
    _plugin_args(plugins)
    return parser


def _version() -> str:
    from langacp import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from langacp.plugins import parse_plugin_options

    blocked, enabled = parse_plugin_options(args.plugin_options)
    if args.command == "serve":
        from langacp.server import serve

        return serve(
            args.target,
            store=args.store,
            blocked=blocked,
            enabled=enabled,
            log_level=args.log_level,
            recursion_limit=args.recursion_limit,
        )
    if args.command == "plugins":
        return _list_plugins(blocked, enabled, as_json=args.json)
    return 2


def _list_plugins(blocked: set[str], enabled: set[str], *, as_json: bool) -> int:
    from langacp.plugins import load_plugins

    plugins = load_plugins(blocked=blocked, enabled=enabled)
    records = [r.as_dict() for r in plugins.records]
    if as_json:
        json.dump(records, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for r in records:
        where = f"{r['distribution'] or '?'} {r['version'] or ''}".strip()
        line = f"{r['name']:<32} {r['status']:<10} {where}"
        if r["error"]:
            line += f"  error: {r['error']}"
        print(line)
        if r["hooks"]:
            print(f"    hooks: {', '.join(r['hooks'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
