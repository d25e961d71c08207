"""What ``langacp serve`` / ``chat`` check before serving, and what ``langacp check`` reports.

Every check returns :class:`Problem` s: one line saying what is wrong and one saying how to
fix it. ``serve`` runs the cheap ones (no target import, no database opened) before it
answers anything: each problem is printed as one line on stderr and the exit status is 2.
``langacp check`` runs them all, including the expensive ones (importing the target, opening
the store), and prints one line per check.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langacp.hints import closest, import_fix, install_command

__all__ = [
    "EXIT_BAD_SETUP",
    "Problem",
    "check_model",
    "check_numbers",
    "check_store",
    "check_target",
    "format_problems",
    "open_store_checked",
    "store_hint",
]

EXIT_BAD_SETUP = 2
"""Exit status of ``langacp serve`` / ``chat`` when the command line or the setup cannot work."""

_STORE_DISTRIBUTIONS = {"sqlite": "langacp-sqlite", "postgres": "langacp-postgres", "postgresql": "langacp-postgres"}
"""Where the store drivers langacp documents come from (others: ``langacp-<name>`` by convention)."""


@dataclass(frozen=True)
class Problem:
    """Something that keeps the agent from working, and how to fix it."""

    what: str
    fix: str = ""

    def line(self) -> str:
        return f"{self.what}; fix: {self.fix}" if self.fix else self.what


def format_problems(problems: Iterable[Problem], prog: str = "langacp") -> str:
    """One line per problem, each prefixed with ``prog``."""
    return "\n".join(f"{prog}: {p.line()}" for p in problems)


def check_numbers(*, recursion_limit: int | None = None) -> list[Problem]:
    """Numeric options in range."""
    problems = []
    if recursion_limit is not None and recursion_limit < 1:
        problems.append(
            Problem(f"--recursion-limit must be at least 1, not {recursion_limit}", "pass a positive number of steps")
        )
    return problems


def check_target(spec: str, *, load: bool = False) -> tuple[list[Problem], str]:
    """Whether TARGET can be found (and, with ``load``, imported and served); and a description of it.

    Without ``load`` nothing of the target is imported: a file must exist, a module must be
    found by the import system (its parent packages are imported to look).
    """
    from langacp.target import TargetError, load_target

    module_part, _, _attr = spec.partition(":")
    if not module_part:
        return [Problem(f"empty TARGET {spec!r}", "name it as module:attr or path/to/file.py:attr")], ""
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        path = Path(module_part).expanduser().resolve()
        if not path.is_file():
            return [
                Problem(f"TARGET {spec}: no such file: {path}", "check the path (relative to the working directory)")
            ], ""
    else:
        try:
            found = _find_module(module_part)
        except ModuleNotFoundError as exc:
            if not (exc.name and module_part.startswith(exc.name)):
                return [Problem(f"TARGET {spec}: cannot import {module_part}: {exc}", import_fix(exc, module_part))], ""
            found = False  # a parent package is not there: say which name was meant
        except Exception as exc:  # noqa: BLE001 - a parent package failed to import
            return [
                Problem(
                    f"TARGET {spec}: cannot import {module_part}: {type(exc).__name__}: {exc}",
                    import_fix(exc, module_part),
                )
            ], ""
        if not found:
            return [_not_found(spec, module_part)], ""
    if not load:
        return [], "found"
    try:
        target = load_target(spec)
    except TargetError as exc:
        return [Problem(f"TARGET {spec}: {exc}", exc.fix or import_fix(exc.__cause__, module_part))], ""
    except Exception as exc:  # noqa: BLE001 - whatever the target's import raises
        return [Problem(f"TARGET {spec}: {type(exc).__name__}: {exc}", import_fix(exc, module_part))], ""
    if target.is_factory:
        return [], "a per-session factory (plugins can add middleware and tools)"
    return [], "a precompiled graph (plugins cannot add middleware or tools: policies are not enforced)"


def _find_module(name: str) -> bool:
    import sys

    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # as load_target does
    return importlib.util.find_spec(name) is not None


def _not_found(spec: str, module_part: str) -> Problem:
    """TARGET's module is not importable from here: the closest name, where it was looked for, the fix."""
    import pkgutil

    parent, _, leaf = module_part.rpartition(".")
    rest = ""
    names: list[str] = []
    if parent:
        try:
            package = importlib.import_module(parent)
            names = [m.name for m in pkgutil.iter_modules(getattr(package, "__path__", []))]
        except Exception:  # noqa: BLE001 - the top package itself is missing: look for it instead
            leaf, _, rest = module_part.partition(".")
            parent = ""
    if not parent:
        names = [m.name for m in pkgutil.iter_modules([str(Path.cwd())])]
    guess = closest(leaf, names)
    where = f"in the working directory {Path.cwd()} or on PYTHONPATH"
    if guess is not None:
        right = ".".join(p for p in (parent, guess, rest) if p)
        return Problem(
            f"TARGET {spec}: no module named {module_part!r} {where}; did you mean `{right}`?",
            f"serve {right}:{spec.partition(':')[2] or 'agent'}",
        )
    top = module_part.split(".")[0]
    return Problem(
        f"TARGET {spec}: no module named {module_part!r} {where}",
        f"run langacp from the directory that holds {top}/ (or {top}.py), add that directory to PYTHONPATH, "
        f"or install its package into this environment ({install_command(top)})",
    )


def store_hint(name: str) -> str:
    """The ``pip install`` line that provides store driver ``name``."""
    return install_command(_STORE_DISTRIBUTIONS.get(name, f"langacp-{name}"))


def check_store(url: str) -> list[Problem]:
    """The store URL names an installed driver, and the driver accepts the URL (no connection made)."""
    from langacp.stores import driver_name, load_store_driver

    name = driver_name(url)
    quiet = logging.getLogger("stevedore")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # it logs "Could not load" before we say it better
    try:
        driver = load_store_driver(url)
    except ValueError:
        return [Problem(f"--store {url}: no session store driver {name!r} is installed", store_hint(name))]
    except Exception as exc:  # noqa: BLE001 - the driver's module failed to import
        return [Problem(f"--store {url}: the {name!r} driver cannot be loaded: {exc}", store_hint(name))]
    finally:
        quiet.setLevel(level)
    validate = getattr(driver, "validate_url", None)
    try:
        if validate is not None:
            validate(url)
    except Exception as exc:  # noqa: BLE001 - the driver's own message says what is wrong
        return [Problem(f"--store {url}: {exc}", "see docs/sessions.md for the URL forms")]
    return []


async def open_store_checked(url: str) -> tuple[list[Problem], Any]:
    """Open the store as the agent would (connecting to it); the problems, or the open store."""
    from langacp.stores import open_store

    try:
        store = open_store(url)
        opener = getattr(store, "aopen", None)
        if opener is not None:
            await opener()
    except Exception as exc:  # noqa: BLE001 - any driver error
        return [
            Problem(f"store {url} cannot be opened: {exc}", "check that the database is reachable and writable")
        ], None
    return [], store


def check_model(model: str | None, *, key_required: bool = False) -> list[Problem]:
    """The default agent's model string names a provider whose package is installed.

    A missing API key is a problem only with ``key_required`` (``langacp check``): ``serve``
    uses a stored key (``langacp login``) or offers the editor its auth methods, and warns.
    """
    if not model:
        return []
    from langacp import auth
    from langacp.default_agent.models import MissingKeyError, ModelError
    from langacp.default_agent.models import check_model as check

    if ":" not in model and not _looks_known(model):
        return [
            Problem(
                f"--model {model!r}: no provider in the model string",
                "write provider:model, e.g. openai:gpt-4.1 or anthropic:claude-sonnet-4-5",
            )
        ]
    auth.use_stored_key(auth.model_key(model))
    try:
        check(model)
    except MissingKeyError as exc:
        if key_required:
            return [Problem(str(exc), "set it, or run: langacp login --model " + model)]
        print(f"langacp: {exc}. Until then sessions answer 'authentication required'.", file=sys.stderr)
    except ModelError as exc:
        return [Problem(str(exc))]  # its message ends with what to install or set
    from langacp.providers import PROVIDERS, provider_of

    provider = provider_of(model)
    if provider is not None and provider not in PROVIDERS:
        refusal = _unknown_provider(model, provider)
        if refusal is not None:
            return [Problem(f"--model {model!r}: unknown provider {provider!r}", refusal)]
    return []


def _unknown_provider(model: str, provider: str) -> str | None:
    """What to use instead, if ``init_chat_model`` refuses ``model``'s provider (a provider langacp has no table for).

    Asked of ``init_chat_model`` itself (LangChain publishes no list of its providers): it
    refuses an unknown provider before importing anything. A provider it knows is imported
    and the model made, as the first session would; any other failure is left to that session.
    """
    import contextlib

    from langchain.chat_models import init_chat_model

    try:
        with contextlib.redirect_stdout(sys.stderr):  # serve's stdout is the protocol's
            init_chat_model(model.partition(":")[2] or model, model_provider=provider)
    except ValueError as exc:
        reason = str(exc)
        if reason.startswith("Unsupported") and repr(provider) in reason:
            _, _, known = reason.partition("Supported model providers are:")
            return "use a provider init_chat_model knows: " + (known.strip() or "see its documentation")
    except Exception:  # noqa: BLE001 - a known provider: its package, keys, … are the session's to report
        pass
    return None


def _looks_known(model: str) -> bool:
    from langacp.providers import provider_of

    return provider_of(model) is not None


def find_command(command: str) -> str | None:
    """The executable ``command`` names (a path or a name on PATH), if it exists."""
    if os.sep in command:
        return command if os.access(command, os.X_OK) else None
    return shutil.which(command)
