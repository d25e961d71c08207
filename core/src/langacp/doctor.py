"""``langacp check [serve args]``: is this setup able to serve? One line per check, exit 0 / 1.

It checks what ``langacp serve`` with the same arguments would need, going further than the
start-up checks because it has the time: it imports the target, opens (and closes) the
store, reads the configuration files and looks for the commands of the MCP servers they
configure. A problem's line ends with its fix.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from langacp.hints import install_command
from langacp.providers import MODEL_ENV
from langacp.startup import (
    Problem,
    check_model,
    check_numbers,
    check_store,
    check_target,
    find_command,
    open_store_checked,
)

if TYPE_CHECKING:
    from langacp.plugins import Plugins

__all__ = ["run_check"]

PACKAGES = ("langacp", "agent-client-protocol", "langchain", "langchain-core", "langgraph")


class Report:
    """Collects ``ok`` and problem lines and prints them as they come."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def ok(self, text: str) -> None:
        print(f"ok       {text}", flush=True)

    def note(self, text: str) -> None:
        print(f"note     {text}", flush=True)

    def problem(self, problem: Problem) -> None:
        self.problems.append(problem)
        print(f"PROBLEM  {problem.line()}", flush=True)

    def add(self, problems: list[Problem], ok_text: str) -> bool:
        for problem in problems:
            self.problem(problem)
        if not problems:
            self.ok(ok_text)
        return not problems


def run_check(args: argparse.Namespace, blocked: set[str], enabled: set[str]) -> int:
    """Run every check; 0 when there is no problem, 1 otherwise."""
    report = Report()
    _python(report)
    _packages(report)
    _protocol(report)
    plugins = _plugins(report, blocked, enabled)
    report.add(check_numbers(recursion_limit=args.recursion_limit), "numeric options in range")
    model = args.model or os.environ.get(MODEL_ENV)
    if model:
        os.environ[MODEL_ENV] = model  # as serve does: the target may read it
    target = args.target
    if target is None or model:
        report.add(check_model(model, key_required=True), _model_text(model))
    if getattr(args, "remote", None):
        _remote(report, args)
    else:
        if target is None:
            from langacp.default_agent import DEFAULT_TARGET

            target = DEFAULT_TARGET
        problems, form = check_target(target, load=True)
        report.add(problems, f"target {target}: {form}")
    _store(report, args.store)
    _config(report, plugins)
    print(
        f"{len(report.problems)} problem(s)" if report.problems else "everything needed to serve is in place",
        flush=True,
    )
    return 1 if report.problems else 0


def _remote(report: Report, args: argparse.Namespace) -> None:
    """``--remote URL GRAPH``: what the remote target driver checks before serving."""
    from langacp.target import DriverTarget, TargetError, load_target_driver

    if not args.target:
        report.problem(Problem("--remote URL needs the GRAPH to serve", "name an assistant id or graph name"))
        return
    options = {"url": args.remote, "api_key_env": args.api_key_env, "headers": list(args.headers)}
    target = DriverTarget("remote", args.target, options)
    try:
        load_target_driver("remote").check(target)
    except TargetError as exc:
        report.problem(Problem(f"remote target {args.target} at {args.remote}: {exc}", "see docs/scale-out.md"))
        return
    except Exception as exc:  # noqa: BLE001 - the driver is missing or broken
        report.problem(Problem(f"remote target driver: {exc}", install_command("langacp-remote")))
        return
    report.ok(f"remote target {args.target} at {args.remote}")


def _python(report: Report) -> None:
    info = sys.version_info
    text = f"Python {info.major}.{info.minor}.{info.micro} ({sys.executable})"
    if info < (3, 11):
        report.problem(Problem(f"{text} is too old", "use Python 3.11 or newer"))
    else:
        report.ok(text)


def _packages(report: Report) -> None:
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            report.problem(Problem(f"package {name} is not installed", f"pip install {name}"))
    report.ok(", ".join(found))


def _protocol(report: Report) -> None:
    from langacp.protocol import protocol_report

    protocol = protocol_report()
    report.ok(f"ACP protocol version {protocol['protocolVersion']}; optional: {', '.join(protocol['optional'])}")


def _plugins(report: Report, blocked: set[str], enabled: set[str]) -> Plugins:
    from langacp.plugins import load_plugins

    plugins = load_plugins(blocked=blocked, enabled=enabled)
    loaded = [r.name for r in plugins.records if r.status == "loaded"]
    for record in plugins.records:
        if record.status == "broken":
            dist = record.distribution or record.name
            again = install_command(dist)
            if " -e " not in again:  # from the package index: reinstall over the broken copy
                again = again.replace("pip install ", "pip install --force-reinstall ", 1)
            report.problem(
                Problem(
                    f"plugin {record.name} ({dist}) failed to load: {record.error}",
                    f"{again}, or block it with -p no:{record.name}",
                )
            )
    blocked_names = [r.name for r in plugins.records if r.status == "blocked"]
    text = f"plugins loaded: {', '.join(loaded) or 'none'}"
    if blocked_names:
        text += f" (blocked: {', '.join(blocked_names)})"
    report.ok(text)
    return plugins


def _model_text(model: str | None) -> str:
    return f"model {model}: provider package and key present" if model else "model: the offline demo model"


def _store(report: Report, store: str | None) -> None:
    from langacp.stores import default_store_url

    url = store or default_store_url()
    if not report.add(check_store(url), f"store driver for {url} installed"):
        return

    async def probe() -> tuple[list[Problem], int | None]:
        problems, opened = await open_store_checked(url)
        if opened is None:
            return problems, None
        try:
            records, _cursor = await opened.list(limit=1000)
            return [], len(records)
        except Exception as exc:  # noqa: BLE001 - any driver error
            return [Problem(f"store {url} cannot list sessions: {exc}", "check the database")], None
        finally:
            await opened.aclose()

    problems, count = asyncio.run(probe())
    report.add(problems, f"store {url} reachable ({count} session(s) listed)")


def _config(report: Report, plugins: Plugins) -> None:
    """Both config files: readable, every plugin's table valid (as ``serve`` reads them), MCP commands found."""
    from langacp.default_plugins.trust import check_layers
    from langacp.trust import load_layers

    layers = load_layers(os.getcwd())
    unreadable = {layers.unreadable(project=False), layers.unreadable(project=True)}
    tables = plugins.config_tables()
    for text, meaning in check_layers(layers, tables):
        if text in unreadable:
            report.problem(
                Problem(text, "correct the TOML at that line" + (f"; until then {meaning}" if meaning else ""))
            )
        elif text in layers.notices:
            report.note(text)
        else:
            report.problem(Problem(f"{text}; until it is fixed, {meaning}"))
    names = ", ".join(f"[{t.name}]" for t in tables)
    servers: dict[str, str] = {}
    for data, path, error in (
        (layers.user, layers.user_path, layers.user_error),
        (layers.project, layers.project_path, layers.project_error),
    ):
        if path is None or error is not None or not path.exists():
            continue
        report.ok(f"config file {path} reads" + (f" ({names} checked)" if names else ""))
        mcp = data.get("mcp")
        table = mcp.get("servers", {}) if isinstance(mcp, dict) else {}
        if isinstance(table, dict):
            for name, server in table.items():
                if isinstance(server, dict) and isinstance(server.get("command"), str):
                    servers[f"{path}: [mcp.servers.{name}]"] = server["command"]
    for where, command in servers.items():
        found = find_command(command)
        if found is None:
            report.problem(Problem(f"{where}: command {command!r} not found", "install it or give its absolute path"))
        else:
            report.ok(f"{where}: command {command} found ({found})")
