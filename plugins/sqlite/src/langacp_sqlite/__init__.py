"""langacp-sqlite: the ``sqlite`` session store driver (``langacp serve --store sqlite:///path.db``)."""

from langacp_sqlite.store import SqliteStore, database_path, default_database_path

__all__ = ["SqliteStore", "database_path", "default_database_path"]
