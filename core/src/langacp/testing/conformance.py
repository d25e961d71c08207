"""The plugin conformance suite: does a plugin honour langacp's contract? One import, one class.

In your plugin's tests::

    from langacp.testing.conformance import PluginConformance


    class TestConformance(PluginConformance):
        entry_point = "my_plugin"  # the name in [project.entry-points.langacp]
        data_models = (MyData,)  # what it keeps with sessions (session.data), if anything

pytest then runs every ``test_*`` method below against the installed plugin:

* it is installed under that entry point, in group ``langacp``;
* importing it is cheap (no LangChain, LangGraph, MCP or ACP SDK) and prints nothing on stdout
  (stdout is the protocol);
* it registers: every hook it implements exists and takes only arguments the hook offers, and
  only the hooks langacp awaits are ``async`` (their record in ``langacp.hookspecs.CONTRACT``);
* its mappers answer ``None`` for tool calls, output blocks, commands, modes and errors that are
  not theirs (ACP prompt blocks are not probed: a content plugin may map every ACP type), and
  its collectors return a list (or ``None``); a mapper that by design answers everything (a
  catch-all title or content mapper) is listed in ``answers_everything``;
* its session data models survive the trip through JSON that every session store makes;
* it imports only the public API (``langacp.api``; ``langacp.testing`` and ``langacp.client``)
  and no other plugin.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import inspect
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

from langacp.hookspecs import CONTRACT
from langacp.plugins import canonical_name

__all__ = ["HEAVY_MODULES", "PluginConformance"]

HEAVY_MODULES = ("langchain", "langchain_core", "langgraph", "acp", "mcp")
"""Packages a plugin must not import when it loads (langacp loads plugins before answering ``initialize``)."""

PUBLIC_MODULES = ("langacp.api", "langacp.testing", "langacp.client")

_PROBE_TOOL = "conformance_probe_tool"


class ConformanceProbeError(Exception):
    """An error no plugin knows: ``langacp_map_error`` must answer ``None`` for it."""


class PluginConformance:
    """Subclass it in a ``test_*.py`` file (name the subclass ``Test…``) and set :attr:`entry_point`."""

    entry_point: ClassVar[str]
    """The plugin's entry-point name in group ``langacp``."""
    data_models: ClassVar[Sequence[type[Any]]] = ()
    """The models the plugin keeps with sessions (``session.data(Model)``)."""
    answers_everything: ClassVar[frozenset[str]] = frozenset()
    """Mapper hooks this plugin answers for any input on purpose (exempt from the ``None`` check)."""

    # -- helpers ---------------------------------------------------------------------------------

    def conformance_entry_point(self) -> EntryPoint:
        name = getattr(self, "entry_point", None)
        assert name, f"{type(self).__name__}: set entry_point to your plugin's entry-point name"
        found = [ep for ep in entry_points(group="langacp") if canonical_name(ep.name) == canonical_name(name)]
        installed = sorted(ep.name for ep in entry_points(group="langacp"))
        assert found, f"no plugin {name!r} in entry-point group 'langacp' (installed: {installed}); pip install it"
        return found[0]

    def conformance_plugin(self) -> Any:
        return self.conformance_entry_point().load()

    def conformance_package(self) -> str:
        return self.conformance_entry_point().module.split(".")[0]

    def conformance_hooks(self) -> dict[str, Any]:
        """The plugin's hook implementations by hook name."""
        plugin = self.conformance_plugin()
        return {name: getattr(plugin, name) for name in CONTRACT if callable(getattr(plugin, name, None))}

    # -- the suite -------------------------------------------------------------------------------

    def test_entry_point_is_installed(self) -> None:
        ep = self.conformance_entry_point()
        assert ep.dist is not None, f"entry point {ep.name!r} belongs to no distribution"

    def test_loads_cheaply_and_prints_nothing(self, tmp_path: Path) -> None:
        """Import it in a fresh interpreter, as ``langacp serve`` does before ``initialize``."""
        report = tmp_path / "loaded.json"
        name = self.conformance_entry_point().name
        code = (
            "import importlib.metadata as m, json, sys\n"
            f"[ep] = [e for e in m.entry_points(group='langacp') if e.name == {name!r}]\n"
            "ep.load()\n"
            f"heavy = sorted({{n.split('.')[0] for n in sys.modules}} & {set(HEAVY_MODULES)!r})\n"
            f"open({str(report)!r}, 'w').write(json.dumps(heavy))\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, f"importing the plugin failed:\n{done.stderr}"
        printed = done.stdout
        assert printed == "", f"the plugin printed to stdout while loading (stdout is the protocol): {printed!r}"
        heavy = json.loads(report.read_text())
        assert heavy == [], f"loading the plugin imported {heavy}: import them inside the hooks that need them"

    def test_registers_with_valid_hooks(self) -> None:
        from langacp.plugins import Plugins

        plugins = Plugins()
        plugin = self.conformance_plugin()
        marked = [name for name in dir(plugin) if plugins.pm.parse_hookimpl_opts(plugin, name) is not None]
        unknown = sorted(name for name in marked if name not in CONTRACT)
        assert unknown == [], f"not hooks of langacp (misspelt?): {unknown}"
        plugins.register(plugin, name=self.entry_point)  # refused: arguments a hook does not offer, wrong async
        assert self.conformance_hooks(), "the plugin implements no hook"

    def test_async_only_where_langacp_awaits(self) -> None:
        wrong = sorted(
            name
            for name, impl in self.conformance_hooks().items()
            if (inspect.iscoroutinefunction(impl) or inspect.isasyncgenfunction(impl)) and not CONTRACT[name].awaited
        )
        assert wrong == [], f"langacp calls these synchronously; an async implementation is never awaited: {wrong}"

    def test_mappers_return_none_for_what_is_not_theirs(self, tmp_path: Path, monkeypatch: Any) -> None:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user configuration
        answered = {}
        for name, impl in self.conformance_hooks().items():
            probe = _probes(tmp_path).get(name)
            if probe is None or name in self.answers_everything:
                continue
            result = _call(impl, probe)
            if inspect.isawaitable(result):  # langacp awaits it: its answer is what it gives
                result = asyncio.run(asyncio.wait_for(_given(result), 30))
            if result is not None and not (name == "langacp_set_mode" and result is False):
                answered[name] = result
        assert answered == {}, (
            f"these mappers answered for input that is not theirs (return None: 'not mine'), "
            f"or list them in answers_everything: {answered}"
        )

    def test_collectors_return_lists(self, tmp_path: Path, monkeypatch: Any) -> None:
        from langacp.api import PermissionRule, SessionContext, ToolCallInfo

        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        session = SessionContext("conformance", str(tmp_path))
        call = ToolCallInfo("conformance-1", _PROBE_TOOL, {})
        arguments = {
            "session": session,
            "call": call,
            "kind": "other",
            "result": _tool_message(call),
            "modes": None,
            "config_options": [],
        }
        wrong = {}
        for name in ("langacp_config_options", "langacp_available_commands", "langacp_auth_methods"):
            impl = self.conformance_hooks().get(name)
            result = _call(impl, arguments) if impl is not None else None
            if result is not None and not isinstance(result, list):
                wrong[name] = result
        rules = self.conformance_hooks().get("langacp_permission_rules")
        found = _call(rules, arguments) if rules is not None else None
        if found is not None and not (isinstance(found, list) and all(isinstance(r, PermissionRule) for r in found)):
            wrong["langacp_permission_rules"] = found
        assert wrong == {}, f"collectors must return a list (rules: of langacp.api.PermissionRule) or None: {wrong}"

    def test_session_data_round_trips(self) -> None:
        from langacp.session_data import dump_data, load_data

        for model in self.data_models:
            value = model()
            stored = json.loads(json.dumps(dump_data(value)))
            assert load_data(model, stored, name="conformance", session_id="conformance") == value, model

    def test_imports_only_the_public_api(self) -> None:
        package = self.conformance_package()
        spec = importlib.util.find_spec(package)
        assert spec is not None
        roots = list(spec.submodule_search_locations or []) or [str(Path(str(spec.origin)).parent)]
        problems = []
        for root in roots:
            files = sorted(Path(root).rglob("*.py")) if spec.submodule_search_locations else [Path(str(spec.origin))]
            for path in files:
                problems += [f"{path.name}: {p}" for p in _import_problems(path, package)]
        assert problems == [], "import only langacp.api (and langacp.testing / langacp.client in tests):\n" + "\n".join(
            problems
        )


def _call(impl: Any, arguments: dict[str, Any]) -> Any:
    """Call a hook implementation with the arguments it asks for, as pluggy does."""
    wanted = inspect.signature(impl).parameters
    return impl(**{name: arguments[name] for name in wanted if name in arguments})


async def _given(awaitable: Any) -> Any:
    return await awaitable


def _tool_message(call: Any) -> Any:
    from langchain_core.messages import ToolMessage

    return ToolMessage(content="probe", tool_call_id=call.tool_call_id, name=call.name)


def _probes(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """Input no plugin should claim, for each mapper hook."""
    from langacp.api import SessionContext, ToolCallInfo

    session = SessionContext("conformance", str(tmp_path))
    call = ToolCallInfo("conformance-1", _PROBE_TOOL, {"conformance_probe": True})
    on_call = {"call": call, "session": session}
    return {
        "langacp_tool_kind": on_call,
        "langacp_tool_title": on_call,
        "langacp_tool_locations": on_call,
        "langacp_tool_start_content": on_call,
        "langacp_tool_result_content": {**on_call, "result": _tool_message(call)},
        "langacp_output_block": {"block": {"type": "conformance_probe"}, "session": session},
        "langacp_authenticate": {"method_id": "conformance-probe"},
        "langacp_set_mode": {"session": session, "mode_id": "conformance-probe"},
        "langacp_set_config_option": {"session": session, "config_id": "conformance_probe", "value": "x"},
        "langacp_run_command": {"session": session, "name": "conformance_probe", "argument": ""},
        "langacp_resume_interrupt": {
            "session": session,
            "interrupts": [SimpleNamespace(id="conformance", value={"conformance_probe": True})],
            "prompt": None,
        },
        "langacp_interrupt_question": {"value": {"conformance_probe": True}, "session": session},
        "langacp_map_error": {"error": ConformanceProbeError("probe"), "method": "conformance/probe"},
    }


def _import_problems(path: Path, package: str) -> list[str]:
    problems = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if name == "langacp":
                problems.append(f"line {node.lineno}: `{name}`: import from langacp.api instead")
            elif top == "langacp" and not any(name == m or name.startswith(m + ".") for m in PUBLIC_MODULES):
                problems.append(f"line {node.lineno}: `{name}` is internal to langacp")
            elif top.startswith("langacp_") and top != package:
                problems.append(f"line {node.lineno}: `{name}` is another plugin: cooperate through hooks")
    return problems
