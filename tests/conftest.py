"""Fixtures shared by the cross-package tests: the official ACP schema, read from the npm SDK installed at test time."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_schema import Schema
from ts_agent_support import NoNode, install_acp_sdk


@pytest.fixture(scope="session")
def acp_sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``@agentclientprotocol/sdk`` installed with npm for this test run (skips the test without Node)."""
    try:
        return install_acp_sdk(tmp_path_factory.mktemp("acp-sdk"))
    except NoNode as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def schema(acp_sdk: Path) -> Schema:
    """The stable v1 schema (``schema/v1/schema.json``)."""
    return Schema(acp_sdk / "schema" / "v1" / "schema.json")


@pytest.fixture(scope="session")
def schemas(acp_sdk: Path) -> tuple[Schema, Schema]:
    """The unstable and the stable v1 schema (``schema.unstable.json``, ``schema.json``)."""
    folder = acp_sdk / "schema" / "v1"
    return Schema(folder / "schema.unstable.json"), Schema(folder / "schema.json")


@pytest.fixture(scope="session")
def unstable_schema(acp_sdk: Path) -> Schema:
    """The unstable v1 schema (``schema/v1/schema.unstable.json``)."""
    return Schema(acp_sdk / "schema" / "v1" / "schema.unstable.json")
