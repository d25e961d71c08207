"""langacp-postgres: the ``postgres`` session store driver (``langacp serve --store postgresql://…``)."""

from langacp_postgres.store import PostgresStore, redact

__all__ = ["PostgresStore", "redact"]
