"""The shared cache as the read path uses it: an unreachable cache reads as a miss, never as an error.

Pages, downloads and pool.json can all be rebuilt from PostgreSQL, so when Redis is down they are
served uncached (slower) instead of failing. Each call answers what a miss would (None, {}, False
for "not stored") and logs a warning at most once per DOWN_SECONDS per process. After a failure the
cache is not asked again for DOWN_SECONDS, so a cache that hangs rather than refuses costs a request
one socket timeout, not one per call.

Writes that must not be lost (ingest's throttle counters) do not use this: ingest answers 503.
"""

import contextlib
import logging
import threading
import time
from typing import Any

from django.core.cache import cache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

DOWN_SECONDS = 5.0

_lock = threading.Lock()
_down_until = 0.0
_failures = 0


class CacheDown(Exception):
    """Raised inside this module only: the cache was not asked, or did not answer."""


def reset() -> None:
    """Ask the cache again on the next call (tests; after a cache comes back)."""
    global _down_until, _failures
    with _lock:
        _down_until = 0.0
        _failures = 0


def is_down() -> bool:
    """Whether a recent call found the cache unreachable (it is not being asked for now)."""
    return time.monotonic() < _down_until


def _failed(error: Exception) -> None:
    global _down_until, _failures
    with _lock:
        now = time.monotonic()
        quiet = now < _down_until
        _failures += 1
        _down_until = now + DOWN_SECONDS
        failures = _failures
    if not quiet:
        logger.warning("the cache is unreachable (%s); serving from the database without it [%d]", error, failures)


def _call(method: str, *args: Any, **kwargs: Any) -> Any:
    if is_down():
        raise CacheDown
    try:
        return getattr(cache, method)(*args, **kwargs)
    except RedisError as error:
        _failed(error)
        raise CacheDown from error


def get(key: str) -> Any:
    try:
        return _call("get", key)
    except CacheDown:
        return None


def get_many(keys: list[str]) -> dict[str, Any] | None:
    """The keys found; None (not {}) when the cache is unreachable, so a caller can tell the two apart."""
    try:
        found: dict[str, Any] = _call("get_many", keys)
    except CacheDown:
        return None
    return found


def set(key: str, value: Any, timeout: float | None) -> None:
    with contextlib.suppress(CacheDown):
        _call("set", key, value, timeout)


def add(key: str, value: Any, timeout: float | None) -> bool | None:
    """True when stored, False when the key was there, None when the cache is unreachable."""
    try:
        return bool(_call("add", key, value, timeout))
    except CacheDown:
        return None


def delete(key: str) -> None:
    with contextlib.suppress(CacheDown):
        _call("delete", key)


def incr(key: str) -> int | None:
    """The incremented value; raises ValueError for a missing key (as the cache does); None when unreachable."""
    try:
        return int(_call("incr", key))
    except CacheDown:
        return None
