"""API keys for real models: auth methods in ``initialize``, ``langacp login`` / ``logout``, sessions gated.

The provider package is a stand-in (tests/fixtures/provider/langchain_anthropic: the scripted
model, refusing to start without ANTHROPIC_API_KEY like the real one); everything else is real.
End to end: the whole flow (``langacp serve --model`` as a subprocess over pipes, ``langacp
login`` in a pseudo-terminal, the key file on disk, a new process after logout), the keyring,
the login prompt. What the agent answers (auth methods, sessions gated, ``logout``) is asked
of the default agent served in this process (``LANGACP_MODEL``, which ``--model`` sets).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pexpect
import pytest
from acp import text_block
from acp.schema import AuthCapabilities, ClientCapabilities
from core_support import FIXTURES, RawAgent, agent_env

from langacp import cli
from langacp.client import RecordingClient, spawn_agent
from langacp.default_agent import DEFAULT_TARGET
from langacp.testing import harness

MODEL = "anthropic:claude-sonnet-4-5"
KEY = "sk-ant-test-0123456789-wxyz"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """An environment with its own config dir, the stand-in provider, no key and no usable keyring."""
    env = agent_env(
        extra={
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        }
    )
    env["PYTHONPATH"] = os.pathsep.join([str(FIXTURES / "provider"), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("ANTHROPIC_API_KEY", None)
    return env


@pytest.fixture
def in_process(home: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """For agents and commands run in this process: ``home``'s environment, no keyring to store in, no
    model yet (the default agent keeps one per process), and after, the stand-in provider and its
    model forgotten (they must not stand in for the demo model or the real provider in later tests)."""
    from langacp.default_agent import agent as default_agent

    monkeypatch.setattr(default_agent, "_model", None)  # restored after the test
    try:
        import keyring
        from keyring.backends.null import Keyring as NullKeyring
    except ImportError:
        keyring = None  # the key file alone
    else:
        monkeypatch.setattr(keyring.core, "_keyring_backend", NullKeyring())  # never the user's keyring
    for key in [k for k in os.environ if k.startswith("LANGACP_")]:
        monkeypatch.delenv(key)
    for key, value in home.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    yield
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", "") or "").startswith(str(FIXTURES / "provider")):
            del sys.modules[name]


def serve_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "langacp.cli", "serve", "--store", "memory", *args]


@asynccontextmanager
async def serve_here(env: dict[str, str], *, model: str | None = MODEL) -> AsyncIterator[Any]:
    """``langacp serve --store memory [--model MODEL]`` in this process: the default agent, the model by
    ``LANGACP_MODEL`` as ``--model`` sets it. Yields the SDK's client connection."""
    environment = {**env, **({"LANGACP_MODEL": model} if model else {})}
    memory = ["--store", "memory"]
    async with harness.serve_in_process(DEFAULT_TARGET, args=memory, env=environment, isolate=False) as agent:
        yield agent


async def request(conn: Any, method: str, params: dict[str, Any]) -> Any:
    """A request the SDK's client side has no method for yet, on its connection."""
    return await conn._conn.send_request(method, params)


async def _initialize(env: dict[str, str], capabilities: Any, *, model: str | None = MODEL) -> Any:
    async with serve_here(env, model=model) as agent:
        return await agent.conn.initialize(protocol_version=1, client_capabilities=capabilities)


@pytest.mark.usefixtures("in_process")
async def test_auth_methods_only_for_a_model_that_needs_a_key(home: dict[str, str]) -> None:
    terminal = ClientCapabilities(auth=AuthCapabilities(terminal=True))
    init = await _initialize(home, terminal)
    methods = {m.id: m for m in init.auth_methods or []}
    assert set(methods) == {"langacp-login", "langacp-env"}
    assert methods["langacp-login"].type == "terminal" and methods["langacp-login"].args == ["--login"]
    assert "ANTHROPIC_API_KEY" in methods["langacp-env"].name
    assert init.agent_capabilities.auth is not None and init.agent_capabilities.auth.logout is not None
    # The offline demo model needs no key: nothing to log in to, nothing to log out of.
    init = await _initialize(home, terminal, model=None)
    assert not init.auth_methods
    assert init.agent_capabilities.auth is None or init.agent_capabilities.auth.logout is None


@pytest.mark.usefixtures("in_process")
async def test_auth_terminal_method_only_for_clients_that_run_it(home: dict[str, str]) -> None:
    init = await _initialize(home, ClientCapabilities())
    assert [m.id for m in init.auth_methods or []] == ["langacp-env"]
    legacy = ClientCapabilities(field_meta={"terminal-auth": True})  # older clients, the registry's validator
    init = await _initialize(home, legacy)
    assert [m.id for m in init.auth_methods or []] == ["langacp-login", "langacp-env"]


@pytest.mark.usefixtures("in_process")
async def test_auth_registry_validator_handshake(home: dict[str, str]) -> None:
    """The ACP registry's auth check, as raw JSON-RPC: its exact initialize, a method of type agent or terminal."""
    env, memory = {**home, "LANGACP_MODEL": MODEL}, ["--store", "memory"]
    async with harness.serve_raw_in_process(DEFAULT_TARGET, args=memory, env=env, isolate=False) as pipes:
        agent = RawAgent(pipes)
        reply = await agent.request(
            1,
            "initialize",
            {
                "protocolVersion": 1,
                "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"},
                "clientCapabilities": {
                    "terminal": True,
                    "fs": {"readTextFile": True, "writeTextFile": True},
                    "_meta": {"terminal_output": True, "terminal-auth": True},
                },
            },
        )
        methods = reply["result"]["authMethods"]
        assert {m.get("type", "agent") for m in methods} == {"terminal", "agent"}
        terminal = next(m for m in methods if m.get("type") == "terminal")
        assert terminal["_meta"]["terminal-auth"]["args"][-2:] == ["--model", MODEL]  # the older clients' form


@pytest.mark.usefixtures("in_process")
async def test_auth_session_needs_the_key_then_login_then_logout(home: dict[str, str], tmp_path: Path) -> None:
    client = RecordingClient()
    work = tmp_path / "work"
    work.mkdir()
    async with spawn_agent(serve_cmd("--model", MODEL), client, env=home) as (conn, _p):
        await conn.initialize(protocol_version=1)
        with pytest.raises(Exception) as failed:
            await conn.new_session(cwd=str(work))
        assert getattr(failed.value, "code", None) == -32000  # auth required
        with pytest.raises(Exception) as refused:
            await conn.authenticate(method_id="langacp-env")
        assert getattr(refused.value, "code", None) == -32000

        # The terminal method: the client runs the agent's command with --login appended, in a terminal.
        login = pexpect.spawn(
            sys.executable, [*serve_cmd("--model", MODEL)[1:], "--login"], env=home, encoding="utf-8", timeout=30
        )
        login.expect("Paste your ANTHROPIC_API_KEY")
        login.sendline(KEY)
        login.expect(pexpect.EOF)
        login.close()
        assert login.exitstatus == 0, login.before
        stored = Path(home["XDG_CONFIG_HOME"]) / "langacp" / "credentials.json"
        assert stat.S_IMODE(stored.stat().st_mode) == 0o600
        assert json.loads(stored.read_text()) == {"keys": {"ANTHROPIC_API_KEY": KEY}}
        assert KEY not in login.before  # not echoed

        await conn.authenticate(method_id="langacp-env")  # the stored key is found now
        session = await conn.new_session(cwd=str(work))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert "key ending wxyz" in client.text(session.session_id)

        assert await request(conn, "logout", {}) == {}  # the SDK's client has no logout() yet
        assert not stored.exists()

    # A new agent after logout (in this process, as a new process would start: no key in the
    # environment, no keyring): sessions need the key again.
    async with serve_here(home) as agent:
        conn = agent.conn
        await conn.initialize(protocol_version=1)
        with pytest.raises(Exception) as again:
            await conn.new_session(cwd=str(work))
        assert getattr(again.value, "code", None) == -32000


@pytest.mark.usefixtures("in_process")
async def test_auth_key_from_the_environment_needs_no_login(home: dict[str, str], tmp_path: Path) -> None:
    env = {**home, "ANTHROPIC_API_KEY": "sk-from-env-abcd"}
    async with serve_here(env) as agent:
        conn, client = agent.conn, agent.client
        await conn.initialize(protocol_version=1)
        await conn.authenticate(method_id="langacp-env")
        session = await conn.new_session(cwd=str(tmp_path))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert "key ending abcd" in client.text(session.session_id)


@pytest.mark.usefixtures("in_process")
async def test_auth_logout_is_not_offered_without_a_key_to_forget(home: dict[str, str]) -> None:
    async with serve_here(home, model=None) as agent:
        conn = agent.conn
        await conn.initialize(protocol_version=1)
        with pytest.raises(Exception) as missing:
            await request(conn, "logout", {})
        assert getattr(missing.value, "code", None) == -32601


def test_auth_login_with_nothing_typed_stores_nothing(home: dict[str, str]) -> None:
    login = pexpect.spawn(
        sys.executable, ["-m", "langacp.cli", "login", "--model", MODEL], env=home, encoding="utf-8", timeout=30
    )
    login.expect("not shown")
    login.sendline("")  # nothing typed: nothing stored
    login.expect(pexpect.EOF)
    login.close()
    assert login.exitstatus == 1 and "nothing stored" in login.before
    stored = Path(home["XDG_CONFIG_HOME"]) / "langacp" / "credentials.json"
    assert not stored.exists()


@pytest.mark.usefixtures("in_process")
def test_auth_logout_and_login_without_a_model_in_process(home: dict[str, str], capsys: Any) -> None:
    """``langacp logout`` and ``langacp login`` with no model, through ``langacp.cli.main`` in this process."""
    stored = Path(home["XDG_CONFIG_HOME"]) / "langacp" / "credentials.json"
    stored.parent.mkdir(parents=True)
    stored.write_text(json.dumps({"keys": {"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": "other"}}))
    assert cli.main(["logout", "--model", MODEL]) == 0
    assert "ANTHROPIC_API_KEY removed" in "".join(capsys.readouterr())
    assert json.loads(stored.read_text()) == {"keys": {"OPENAI_API_KEY": "other"}}  # the other provider's stays
    assert cli.main(["login"]) == 2
    assert "no model is set" in "".join(capsys.readouterr())


async def test_auth_login_uses_the_keyring_when_it_has_a_backend(home: dict[str, str], tmp_path: Path) -> None:
    """With ``keyring`` installed and a working backend, the key goes there, not into a file."""
    pytest.importorskip("keyring")
    ring = tmp_path / "keyring.json"
    env = {**home, "PYTHON_KEYRING_BACKEND": "langacp_test_keyring.FileKeyring", "LANGACP_TEST_KEYRING": str(ring)}
    login = pexpect.spawn(
        sys.executable, ["-m", "langacp.cli", "login", "--model", MODEL], env=env, encoding="utf-8", timeout=30
    )
    login.expect("not shown")
    login.sendline(KEY)
    login.expect(pexpect.EOF)
    login.close()
    assert login.exitstatus == 0 and "system keyring (FileKeyring)" in login.before
    assert json.loads(ring.read_text()) == {"langacp/ANTHROPIC_API_KEY": KEY}
    assert not (Path(home["XDG_CONFIG_HOME"]) / "langacp" / "credentials.json").exists()
    client = RecordingClient()
    async with spawn_agent(serve_cmd("--model", MODEL), client, env=env) as (conn, _p):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(tmp_path))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert "key ending wxyz" in client.text(session.session_id)
        assert await request(conn, "logout", {}) == {}
    assert json.loads(ring.read_text()) == {}
