"""Hints that end an error line: what to install (from where the user is), what was meant, where it raised."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

__all__ = ["closest", "import_fix", "install_command", "where_raised"]


def where_raised(exc: BaseException) -> str:
    """``see FILE:LINE (code)`` of the user's frame that raised ``exc`` (not a library's, not langacp's)."""
    import traceback

    if isinstance(exc, SyntaxError) and exc.filename:
        return f"correct the syntax at {exc.filename}:{exc.lineno}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    if not frames:
        return ""
    mine = [f for f in frames if not f.filename.startswith(_libraries())]
    frame = (mine or frames)[-1]
    return f"see {frame.filename}:{frame.lineno}" + (f" ({frame.line.strip()})" if frame.line else "")


def _libraries() -> tuple[str, ...]:
    """Where installed libraries, the standard library and langacp itself live."""
    import sysconfig

    paths = sysconfig.get_paths()
    found = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)}
    return (*sorted(found), str(Path(__file__).resolve().parent))


def closest(name: str, candidates: Sequence[str]) -> str | None:
    """The candidate most like ``name`` (a typo's intended word), if one is close."""
    found = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def import_fix(exc: BaseException | None, module_part: str = "") -> str:
    """What fixes a target whose import raised ``exc``: install what is missing, or the line that raised it."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        if module_part and top == module_part.split(".")[0]:
            return f"run langacp from the directory that holds {top}/, or add that directory to PYTHONPATH"
        return f"install the package that provides {top!r} ({install_command(top.replace('_', '-'))})"
    if exc is None:
        return ""
    return where_raised(exc) or f"see the {type(exc).__name__} above"


def install_command(distribution: str, extra: str | None = None) -> str:
    """``pip install NAME`` — or, run from a clone of langacp (an editable install), the clone's directory.

    A package of the clone that is not installed (``langacp-postgres``) is installed from its
    directory, named relative to the working directory when under it: ``pip install -e
    ./plugins/postgres``. Everything else comes from the package index.
    """
    clone = _clone()
    if clone is not None:
        name = distribution.removeprefix("langacp-").removeprefix("langacp_")
        directory = clone / "core" if distribution == "langacp" else clone / "plugins" / name
        if distribution.startswith(("langacp-", "langacp_")) or distribution == "langacp":
            if (directory / "pyproject.toml").is_file():
                shown = _shown(directory) + (f"[{extra}]" if extra else "")
                return f"pip install -e '{shown}'" if extra else f"pip install -e {shown}"
    return f"pip install '{distribution}[{extra}]'" if extra else f"pip install {distribution}"


def _clone() -> Path | None:
    """The root of the langacp clone this ``langacp`` runs from (an editable install), if it does."""
    root = Path(__file__).resolve().parents[3]  # <root>/core/src/langacp/hints.py
    if (root / "core" / "pyproject.toml").is_file() and (root / "plugins").is_dir():
        return root
    return None


def _shown(directory: Path) -> str:
    """``directory`` relative to the working directory (``./plugins/x``) when under it, else absolute."""
    try:
        return "./" + str(directory.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(directory)
