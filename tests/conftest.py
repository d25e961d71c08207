"""Fixtures shared by the cross-package tests: the official ACP schema and the TypeScript SDK programs (npm)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from acp_schema import Schema
from ts_agent_support import (
    NoNode,
    install_acp_sdk,
    install_ts_agent,
    install_ts_agent_v2,
    install_ts_client,
    install_ts_scenarios_client,
    install_ts_updates_client,
    npm_dir,
)


@pytest.fixture(scope="session")
def acp_sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``@agentclientprotocol/sdk`` installed with npm for this test run (skips the test without Node)."""
    try:
        return install_acp_sdk(npm_dir(tmp_path_factory))
    except NoNode as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def schema(acp_sdk: Path) -> Schema:
    """The stable v1 schema (``schema/v1/schema.json``)."""
    return Schema(acp_sdk / "schema" / "v1" / "schema.json")


@pytest.fixture(scope="session")
def v2_schema(acp_sdk: Path) -> Schema:
    """The v2 schema (``schema/v2/schema.json``), against which the v2 tests check what the agent sends."""
    return Schema(acp_sdk / "schema" / "v2" / "schema.json")


@pytest.fixture(scope="session")
def schemas(acp_sdk: Path) -> tuple[Schema, Schema]:
    """The unstable and the stable v1 schema (``schema.unstable.json``, ``schema.json``)."""
    folder = acp_sdk / "schema" / "v1"
    return Schema(folder / "schema.unstable.json"), Schema(folder / "schema.json")


@pytest.fixture(scope="session")
def unstable_schema(acp_sdk: Path) -> Schema:
    """The unstable v1 schema (``schema/v1/schema.unstable.json``)."""
    return Schema(acp_sdk / "schema" / "v1" / "schema.unstable.json")


def _program(install: Callable[[Path], list[str]], factory: pytest.TempPathFactory) -> list[str]:
    """The command of a TypeScript SDK test program, installed in the run's npm directory (skips without Node)."""
    try:
        return install(npm_dir(factory))
    except NoNode as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def ts_agent(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The TypeScript SDK's v1 test agent (tests/fixtures/ts_agent/agent.mjs)."""
    return _program(install_ts_agent, tmp_path_factory)


@pytest.fixture(scope="session")
def ts_agent_v2(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The TypeScript SDK's v1 + v2 test agent (its protocol router; agent_v2.mjs)."""
    return _program(install_ts_agent_v2, tmp_path_factory)


@pytest.fixture(scope="session")
def ts_forms_client(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The TypeScript SDK client that shows forms (elicitation; tests/fixtures/ts_client/client.mjs)."""
    return _program(install_ts_client, tmp_path_factory)


@pytest.fixture(scope="session")
def ts_updates_client(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The TypeScript SDK client that records every session update (updates.mjs)."""
    return _program(install_ts_updates_client, tmp_path_factory)


@pytest.fixture(scope="session")
def ts_scenarios_client(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The TypeScript SDK client's v1/v2 scenarios (scenarios.mjs)."""
    return _program(install_ts_scenarios_client, tmp_path_factory)
