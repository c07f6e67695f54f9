"""The embedded default's database: Django's SQLite backend that makes its file's folder when it first connects."""
