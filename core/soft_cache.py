"""The shared cache as the read path uses it: an unreachable cache reads as a miss, never as an error.

Pages, downloads and pool.json can all be rebuilt from PostgreSQL, so when Redis is down they are
served uncached (slower) instead of failing. Each call answers what a miss would (None, {}, False
for "not stored"). Every call goes through the process's one Redis circuit breaker
(core.redis_breaker): after a failure the cache is not asked again for a few seconds, so a cache that
hangs rather than refuses costs one socket timeout, not one per call, and the throttle counters and
this cache learn it from each other.

Writes that must not be lost (ingest's throttle counters) do not use this: ingest answers 503.
"""

import contextlib
from typing import Any

from django.core.cache import cache

from core import redis_breaker
from core.redis_breaker import RedisDown


def reset() -> None:
    """Ask the cache again on the next call (tests; after a cache comes back)."""
    redis_breaker.reset()


def is_down() -> bool:
    """Whether a recent call found the cache unreachable (it is not being asked for now)."""
    return redis_breaker.is_down()


def _call(method: str, *args: Any, **kwargs: Any) -> Any:
    return redis_breaker.guarded(lambda: getattr(cache, method)(*args, **kwargs))


def get(key: str) -> Any:
    try:
        return _call("get", key)
    except RedisDown:
        return None


def get_many(keys: list[str]) -> dict[str, Any] | None:
    """The keys found; None (not {}) when the cache is unreachable, so a caller can tell the two apart."""
    try:
        found: dict[str, Any] = _call("get_many", keys)
    except RedisDown:
        return None
    return found


def set(key: str, value: Any, timeout: float | None) -> None:
    with contextlib.suppress(RedisDown):
        _call("set", key, value, timeout)


def add(key: str, value: Any, timeout: float | None) -> bool | None:
    """True when stored, False when the key was there, None when the cache is unreachable."""
    try:
        return bool(_call("add", key, value, timeout))
    except RedisDown:
        return None


def delete(key: str) -> None:
    with contextlib.suppress(RedisDown):
        _call("delete", key)


def incr(key: str) -> int | None:
    """The incremented value; raises ValueError for a missing key (as the cache does); None when unreachable."""
    try:
        return int(_call("incr", key))
    except RedisDown:
        return None
