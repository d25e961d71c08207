"""The acpx binary for the tests that drive langacp with it (``nox -s dist`` runs them)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

ACPX_VERSION = "0.19.1"


@pytest.fixture(scope="session")
def acpx(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``LANGACP_ACPX``, else ``acpx`` on PATH, else installed from npm into a temporary directory."""
    found = os.environ.get("LANGACP_ACPX") or shutil.which("acpx")
    if found:
        return found
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("needs acpx (npm install -g acpx) or npm to install it")
    # Installed as the TypeScript SDK is (tests/ts_agent_support.py): into a package directory, run there. Not with
    # ``--prefix DIR``: that also moves npm's global config to DIR/etc/npmrc, so the system's (here /usr/etc/npmrc,
    # which names the CA bundle) goes unread, and under ``env -i`` (no NODE_EXTRA_CA_CERTS) TLS failed with
    # SELF_SIGNED_CERT_IN_CHAIN.
    directory = tmp_path_factory.mktemp("acpx")
    (directory / "package.json").write_text('{"private": true}\n')
    installed = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", f"acpx@{ACPX_VERSION}"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, f"npm could not install acpx@{ACPX_VERSION}: {installed.stderr.strip()[-1000:]}"
    return str(directory / "node_modules" / ".bin" / "acpx")
