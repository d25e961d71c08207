"""API keys for the model the agent runs (``--model`` / ``LANGACP_MODEL``): login, logout, ACP auth methods.

When that model's provider needs a key, ``initialize`` offers two ACP auth methods:

- ``langacp-login`` (type ``terminal``): the editor runs the agent's own command with
  ``--login`` appended in a terminal; :func:`login` asks for the key and stores it. Offered only
  to clients that declare ``clientCapabilities.auth.terminal`` (or the older
  ``clientCapabilities._meta["terminal-auth"]``).
- ``langacp-env`` (type ``agent``): ``authenticate`` succeeds when the key is in the agent's
  environment (the editor's ``env`` for the agent) or was stored by a login.

Keys are stored in the system keyring when the ``keyring`` package is installed with a usable
backend, else in ``$XDG_CONFIG_HOME/langacp/credentials.json`` (mode 0600). A key from the
environment always wins over a stored one. With no model set (the offline demo model) or a
provider that needs no key (ollama, bedrock through the AWS chain), no method is offered:
there is nothing to log in to.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langacp.config import user_config_path
from langacp.providers import MODEL_ENV, PROVIDERS, provider_of

__all__ = [
    "ENV_METHOD",
    "LOGIN_ARG",
    "TERMINAL_METHOD",
    "ModelKey",
    "auth_methods",
    "client_runs_terminal_auth",
    "credentials_path",
    "current_key",
    "forget_key",
    "login",
    "model_key",
    "store_key",
    "stored_key",
    "use_stored_key",
]

TERMINAL_METHOD = "langacp-login"
ENV_METHOD = "langacp-env"
LOGIN_ARG = "--login"
"""What a terminal-auth client appends to the agent's command: ``langacp serve … --login``."""
KEYRING_SERVICE = "langacp"

_from_store: set[str] = set()
"""Environment variables this process set from the store (a logout unsets them again)."""


@dataclass(frozen=True)
class ModelKey:
    """The API key a model needs: its provider and the environment variables that may hold it."""

    model: str
    provider: str
    env_vars: tuple[str, ...]

    @property
    def primary(self) -> str:
        return self.env_vars[0]

    def present(self) -> bool:
        """The key is in the environment (set by the user, or from the store by :func:`use_stored_key`)."""
        return any(os.environ.get(var) for var in self.env_vars)


def model_key(model: str | None) -> ModelKey | None:
    """The key ``model`` needs, or ``None`` (no model, unknown provider, or a provider without keys)."""
    if not model:
        return None
    provider = provider_of(model)
    spec = PROVIDERS.get(provider or "")
    if provider is None or spec is None or not spec.keys:
        return None
    return ModelKey(model, provider, spec.keys)


def current_key() -> ModelKey | None:
    """The key the configured model (``LANGACP_MODEL``) needs, if any."""
    return model_key(os.environ.get(MODEL_ENV))


# -- storage -----------------------------------------------------------------------------------


def credentials_path() -> Path:
    """``$XDG_CONFIG_HOME/langacp/credentials.json``, beside the user config."""
    return user_config_path().with_name("credentials.json")


def _keyring() -> Any:
    """The ``keyring`` module when installed with a backend that stores (not the fail/null ones)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a broken keyring setup: use the file
        return None
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
        return None
    return keyring


def _read_file() -> dict[str, str]:
    path = credentials_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    keys = data.get("keys") if isinstance(data, dict) else None
    return {k: v for k, v in (keys or {}).items() if isinstance(k, str) and isinstance(v, str)}


def _write_file(keys: dict[str, str]) -> Path:
    """Write ``keys`` with mode 0600 from the start (a temporary file renamed over the old one)."""
    path = credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not keys:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return path
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"keys": keys}, out, indent=2)
    os.replace(tmp, path)
    return path


def store_key(env_var: str, value: str) -> str:
    """Store ``value`` as ``env_var``'s key; returns where (for the user)."""
    ring = _keyring()
    if ring is not None:
        ring.set_password(KEYRING_SERVICE, env_var, value)
        return f"the system keyring ({type(ring.get_keyring()).__name__})"
    keys = _read_file()
    keys[env_var] = value
    return str(_write_file(keys))


def stored_key(env_var: str) -> str | None:
    """The stored key for ``env_var`` (keyring first, then the file)."""
    ring = _keyring()
    if ring is not None:
        with contextlib.suppress(Exception):
            value = ring.get_password(KEYRING_SERVICE, env_var)
            if value:
                return str(value)
    return _read_file().get(env_var) or None


def forget_key(key: ModelKey) -> bool:
    """Remove ``key``'s stored values (keyring and file), and unset what this process took from the store."""
    removed = False
    ring = _keyring()
    for var in key.env_vars:
        if ring is not None:
            with contextlib.suppress(Exception):
                ring.delete_password(KEYRING_SERVICE, var)
                removed = True
        if var in _from_store:
            os.environ.pop(var, None)
            _from_store.discard(var)
    keys = _read_file()
    if any(var in keys for var in key.env_vars):
        _write_file({k: v for k, v in keys.items() if k not in key.env_vars})
        removed = True
    return removed


def use_stored_key(key: ModelKey | None) -> bool:
    """Put a stored key into the environment when none is set there; whether the key is now present."""
    if key is None:
        return True
    if key.present():
        return True
    for var in key.env_vars:
        value = stored_key(var)
        if value:
            os.environ[var] = value
            _from_store.add(var)
            return True
    return False


# -- ACP ---------------------------------------------------------------------------------------


def client_runs_terminal_auth(client_capabilities: Any) -> bool:
    """The client declared terminal auth: ``auth.terminal`` (stable) or ``_meta["terminal-auth"]`` (older clients)."""
    if client_capabilities is None:
        return False
    auth = getattr(client_capabilities, "auth", None)
    if auth is not None and getattr(auth, "terminal", False) is True:
        return True
    meta = getattr(client_capabilities, "field_meta", None) or {}
    return bool(meta.get("terminal-auth"))


def login_command() -> list[str]:
    """The absolute command that runs the login, for clients of the older ``_meta`` terminal auth."""
    model = os.environ.get(MODEL_ENV, "")
    return [sys.executable, "-m", "langacp.cli", "login", *(["--model", model] if model else [])]


def auth_methods(key: ModelKey | None) -> list[Any]:
    """The ACP auth methods for ``key`` (none without one), terminal first."""
    if key is None:
        return []
    from acp.schema import AuthMethodAgent, TerminalAuthMethod

    command = login_command()
    terminal = TerminalAuthMethod(
        type="terminal",
        id=TERMINAL_METHOD,
        name="Log in with an API key",
        description=f"Paste your {key.primary} for {key.model}; langacp stores it for later runs.",
        args=[LOGIN_ARG],
        field_meta={"terminal-auth": {"command": command[0], "args": command[1:], "label": "langacp login"}},
    )
    env = AuthMethodAgent(
        id=ENV_METHOD,
        name=f"Use {key.primary} from the environment",
        description=f"Set {' or '.join(key.env_vars)} in the agent's environment (the editor's env for the agent).",
    )
    return [terminal, env]


# -- the terminal flow -------------------------------------------------------------------------


def login(model: str | None, *, stream: Any = None) -> int:
    """Ask for ``model``'s API key on the terminal and store it; the exit code (0: stored)."""
    out = stream or sys.stderr
    key = model_key(model)
    if key is None:
        reason = "no model is set (--model or LANGACP_MODEL)" if not model else f"{model!r} needs no API key"
        print(f"langacp login: nothing to do: {reason}.", file=out)
        return 0 if model else 2
    print(f"langacp: log in for {key.model} ({key.provider}).", file=out)
    import getpass  # only here: the served agent never reads from a terminal

    try:
        value = getpass.getpass(f"Paste your {key.primary} (not shown): ", stream=out).strip()
    except (EOFError, KeyboardInterrupt):
        print("\nlangacp login: cancelled.", file=out)
        return 1
    if not value:
        print("langacp login: no key given; nothing stored.", file=out)
        return 1
    where = store_key(key.primary, value)
    print(f"langacp: {key.primary} stored in {where}. `langacp logout` removes it.", file=out)
    return 0


def logout(model: str | None, *, stream: Any = None) -> int:
    """Remove ``model``'s stored key; the exit code."""
    out = stream or sys.stderr
    key = model_key(model)
    if key is None:
        print("langacp logout: no model needing an API key is set (--model or LANGACP_MODEL).", file=out)
        return 2
    removed = forget_key(key)
    print(f"langacp: {key.primary} {'removed' if removed else 'was not stored'}.", file=out)
    return 0
