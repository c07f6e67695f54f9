"""Django's SQLite backend, making the database file's folder (var/) at the first connection, not when the
settings are read."""

from pathlib import Path
from typing import Any

from django.db.backends.sqlite3 import base


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        name = str(conn_params.get("database", ""))
        if name and name != ":memory:" and not name.startswith("file:"):
            Path(name).parent.mkdir(parents=True, exist_ok=True)
        return super().get_new_connection(conn_params)
