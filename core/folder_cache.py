"""The embedded default's shared cache (no REDIS_URL): a folder, so that what one process computed (the harness
lenses `prepare_site` scores with the demo pool) is there for the server process started after it.

Django's file cache, with what this service asks of a cache: `add` and `incr` atomic among the threads of a
process (the embedded server is one process), `incr` keeping the entry's expiry (Django's generic one would set
the default 300 s on a counter kept for good), and a file that cannot be read or written a miss, never an error,
as an unreachable Redis is (core.soft_cache). The folder belongs to one database: `prepare_site` empties it when
it fills a new one.
"""

import logging
import pickle
import threading
import time
import zlib
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache

log = logging.getLogger(__name__)

# What reading an entry raises besides a missing file: a file cut short, written by another version, or unreadable.
_UNREADABLE = (OSError, EOFError, pickle.UnpicklingError, zlib.error, AttributeError, ImportError, ValueError)
_GUARD = threading.Lock()


class FolderCache(FileBasedCache):
    def entry_path(self, key: str, version: int | None = None) -> str:
        """The file that holds the entry of `key`."""
        return str(self._key_to_file(key, version))  # type: ignore[attr-defined]  # FileBasedCache's, untyped

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        try:
            return super().get(key, default, version)
        except _UNREADABLE as error:
            log.warning("cache entry %s unreadable (%s): read as a miss", key, error)
            return default

    def set(self, key: str, value: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        try:
            super().set(key, value, timeout, version)
        except OSError as error:
            log.warning("cache entry %s not written (%s)", key, error)

    def add(self, key: str, value: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        with _GUARD:
            try:
                return bool(super().add(key, value, timeout, version))
            except _UNREADABLE as error:
                log.warning("cache entry %s not added (%s)", key, error)
                return False

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        with _GUARD:
            path = self.entry_path(key, version)
            try:
                with open(path, "rb") as entry:
                    # The layout FileBasedCache writes (and reads, as here): the expiry, then the value.
                    expiry = pickle.load(entry)  # noqa: S301 - this folder's own entries
                    value = pickle.loads(zlib.decompress(entry.read()))  # noqa: S301 - this folder's own entries
            except FileNotFoundError:
                raise ValueError(f"Key '{key}' not found") from None
            now = time.time()
            if expiry is not None and expiry < now:
                self.delete(key, version=version)
                raise ValueError(f"Key '{key}' not found")
            value += delta
            self.set(key, value, None if expiry is None else expiry - now, version)
            return int(value)
