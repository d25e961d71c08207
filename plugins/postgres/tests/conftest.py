"""A fresh PostgreSQL database per test, on the server named by ``LANGACP_TEST_POSTGRES_URL``.

Without that variable a server on localhost:5432 (user ``postgres``) is tried. When no server
is reachable the tests skip, saying why, except when ``CI`` or ``LANGACP_REQUIRE_POSTGRES=1``
is set: then they fail (``.ci/run`` starts a server first).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _required() -> bool:
    return bool(os.environ.get("CI")) or os.environ.get("LANGACP_REQUIRE_POSTGRES") == "1"


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The URL of a reachable server (its maintenance database); skip or fail when there is none."""
    import psycopg

    url = os.environ.get("LANGACP_TEST_POSTGRES_URL") or DEFAULT_URL
    try:
        with psycopg.connect(url, connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        reason = (
            f"no PostgreSQL server reachable at {url} ({str(exc).strip().splitlines()[0]}); "
            "set LANGACP_TEST_POSTGRES_URL=postgresql://user@host:port/db to run these tests"
        )
        if _required():
            pytest.fail(f"PostgreSQL is required here (CI / LANGACP_REQUIRE_POSTGRES=1): {reason}")
        pytest.skip(reason)
    return url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A new empty database on that server, dropped after the test."""
    import psycopg

    name = f"langacp_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(postgres_server, name)
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sql_ascii_url(postgres_server: str) -> Iterator[str]:
    """A new empty ``SQL_ASCII`` database (what initdb creates where no locale is set), dropped after the test."""
    import psycopg

    name = f"langacp_test_ascii_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE \"{name}\" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
    try:
        yield _with_database(postgres_server, name)
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
