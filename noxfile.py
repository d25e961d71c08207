"""Development sessions. ``nox`` (lint, typecheck, tests, core, plugin, dist) is what CI runs: see .ci/run."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import nox

ROOT = Path(__file__).parent
SYSTEM_CA = "/etc/ssl/certs/ca-certificates.crt"
PLUGINS = sorted(p.name for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").exists())
EXAMPLE_PLUGINS = ["examples/plugin-titles", "examples/plugins/langacp-example-kinds"]
TEST_DEPS = [
    "pytest>=8",
    "pytest-asyncio>=0.24",
    "pytest-timeout>=2",
    "hypothesis>=6",
    "pexpect>=4.8",
    "pytest-xdist>=3",
    "jsonschema>=4",
    "lupa>=2",
    "sexpdata>=1",
    "keyring>=24",
]

# Lint and typecheck first: a style or type error is reported in the first minute, not after the tests.
# Sessions are defined in this order too, so ``nox -l`` lists them as they run; the others follow.
nox.options.sessions = ["lint", "typecheck", "tests", "core", "plugin", "dist"]
nox.options.reuse_existing_virtualenvs = True


def _plugin(name: str) -> str:
    """``-e./plugins/<name>``, with its ``test`` extra (e.g. test servers) when it declares one."""
    project = tomllib.loads((ROOT / "plugins" / name / "pyproject.toml").read_text()).get("project", {})
    return f"-e./plugins/{name}[test]" if "test" in project.get("optional-dependencies", {}) else f"-e./plugins/{name}"


def _install_all(session: nox.Session) -> None:
    # langchain-openai: the default agent's --model against a local OpenAI-compatible server (stream usage)
    session.install("-e", "./core", *(_plugin(name) for name in PLUGINS), *TEST_DEPS, "langchain-openai")
    session.install(*(arg for path in EXAMPLE_PLUGINS for arg in ("-e", path)))


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff (lint and formatting), commit subjects, import-linter (the core's layers; plugins use only langacp.api)."""
    session.install("ruff>=0.6", "import-linter>=2.17")  # layers with exhaustive, acyclic_siblings
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("python", "scripts/check_commit_subjects.py")  # CONTRIBUTING.md: subjects of at most 72 characters
    # grimp reads the packages' files (nothing is imported): their source directories are enough.
    sources = ["core/src", *(f"plugins/{name}/src" for name in PLUGINS), *(f"{path}/src" for path in EXAMPLE_PLUGINS)]
    session.run("lint-imports", env={"PYTHONPATH": ":".join(sources)})


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy --strict over the core and every plugin package."""
    _install_all(session)
    session.install("mypy>=1.11")
    packages = ["langacp", *(f"langacp_{name.replace('-', '_')}" for name in PLUGINS)]
    search_path = ":".join(["core/src", *(f"plugins/{name}/src" for name in PLUGINS)])
    session.run("mypy", *(arg for pkg in packages for arg in ("-p", pkg)), env={"MYPYPATH": search_path})


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """Everything installed: the tests of the core, every plugin, the example plugins and across packages."""
    _install_all(session)
    examples = [f"{path}/tests" for path in EXAMPLE_PLUGINS]
    paths = ["core/tests", *(f"plugins/{name}/tests" for name in PLUGINS), *examples, "tests"]
    session.run("pytest", *paths, "--ignore=tests/dist", *session.posargs)  # tests/dist: the dist session


@nox.session(python="3.11")
def core(session: nox.Session) -> None:
    """The core alone, the quick check: a correct minimal agent with no plugin installed.

    Two pytest workers (pytest-xdist), each test module on one of them (its module-scoped agents
    are started once); ``nox -s core -- -n0`` runs it in one process.
    """
    session.install("-e", "./core", *TEST_DEPS)
    session.run("pytest", "core/tests", "-n", "2", "--dist", "loadfile", *session.posargs)


@nox.session(python="3.11")
@nox.parametrize("plugin", PLUGINS)
def plugin(session: nox.Session, plugin: str) -> None:
    """One plugin with the core only, tested on its own."""
    session.install("-e", "./core", _plugin(plugin), *TEST_DEPS)
    session.run("pytest", f"plugins/{plugin}/tests", *session.posargs)


@nox.session(python="3.11")
def dist(session: nox.Session) -> None:
    """Build every package into dist/ and check it, install the wheels into fresh environments and serve.

    Wheels and sdists are checked with twine, then installed from there (pip with the ``all``
    extra; uvx) and served (tests/dist).
    """
    # uv does not read pip's configuration: where no CA bundle is named (a bare `env -i` shell, a TLS-intercepting
    # proxy), point it at the system's, which pip already trusts here.
    if "SSL_CERT_FILE" not in session.env and "SSL_CERT_FILE" not in os.environ and Path(SYSTEM_CA).exists():
        session.env["SSL_CERT_FILE"] = SYSTEM_CA
    session.install("build>=1.2", "twine>=5", "uv>=0.5", "-e", "./core", *TEST_DEPS)
    out = ROOT / "dist"
    if out.exists():
        for old in out.iterdir():
            old.unlink()
    packages = ["core", *(f"plugins/{name}" for name in PLUGINS), *EXAMPLE_PLUGINS]
    for package in packages:
        session.run("python", "-m", "build", "--installer", "uv", "--quiet", "--outdir", str(out), package)
    session.run("twine", "check", "--strict", *sorted(str(p) for p in out.iterdir()))
    session.run("pytest", "tests/dist", *session.posargs, env={"LANGACP_DIST_DIR": str(out)})


@nox.session(python="3.11")
def fuzz(session: nox.Session) -> None:
    """Fuzzing: 10,000 generated JSON-RPC lines against one agent over real pipes (about 4 minutes).

    ``nox -s fuzz -- N SEED`` changes the count and the seed. Prints the figures; fails on any
    crash or unanswered request.
    """
    session.install("-e", "./core", *TEST_DEPS)
    session.run("python", "tests/fuzz/fuzz_agent.py", *session.posargs)


PEERS = ["langchain-acp", "deepagents-acp", "pluggy"]
"""Peer ACP adapters the benchmark compares with, installed apart in .bench/peers (git-ignored)."""


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """The performance tables (docs/benchmarks.md): langacp's two forms and its peers against the bare graph.

    Then the growth rows (a 600-turn session, 50/100/200 open sessions; tests/bench/growth.py).

    ``nox -s bench -- --compare`` fails when a row is >10% worse than tests/bench/baseline.json;
    ``-- --compare main`` against main's; ``-- --record`` stores this run's ratios and table.
    langacp is served from lean environments the script builds in .bench (``-- --env dev``: from this one).
    """
    _install_all(session)
    peers = ROOT / ".bench" / "peers"
    if not (peers / "bin" / "python").exists():
        session.run("python", "-m", "venv", str(peers))
        # Best effort: without them the table has no peer columns.
        session.run(str(peers / "bin" / "pip"), "install", "-q", *PEERS, success_codes=[0, 1], external=True)
    session.run("python", "tests/bench/forms.py", *session.posargs)
    # The growth rows: one long session and many open ones (``--quick`` and ``--record`` apply to both).
    growth = [arg for arg in session.posargs if arg in ("--quick", "--record")]
    session.run("python", "tests/bench/growth.py", *growth)


@nox.session(name="bench-features", python="3.11")
def bench_features(session: nox.Session) -> None:
    """The older per-feature benchmarks (cancel, exit, MCP, modes, library, …), each with same-run ratios."""
    _install_all(session)
    session.run("python", "tests/bench/bench.py", *session.posargs)
    for script in sorted((ROOT / "tests" / "bench").glob("bench_*.py")):
        session.run("python", str(script.relative_to(ROOT)))
