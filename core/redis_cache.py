"""Django's Redis cache backend, its client made by core.redis_breaker's one client factory.

Django's own backend builds its connection pools from the cache's OPTIONS, a second place deciding
Redis timeouts and retries. Here the cache asks the factory for the client of its LOCATION: the same
short timeouts (REDIS_TIMEOUT, read when the client is made), no retries, and the same pooled
connections as the throttle counters, the coordination locks and the health check.
"""

from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.core.exceptions import ImproperlyConfigured

from core import redis_breaker

# What OPTIONS may still say: how values are turned into bytes, which is the cache's own business.
CACHE_OPTIONS = frozenset({"serializer"})


class FactoryRedisCacheClient(RedisCacheClient):
    """Django's cache client but for where its Redis client comes from."""

    def __init__(self, servers: list[str], serializer: Any = None) -> None:
        super().__init__(servers, serializer=serializer)

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        # The index picks the server as Django's does: writes to the first, reads from any other (both are
        # Django's own, not in its stubs).
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        return redis_breaker.client(self._servers[index])  # type: ignore[attr-defined]


class FactoryRedisCache(RedisCache):
    """settings.CACHES' Redis backend: no timeouts, pools or parsers of its own in OPTIONS."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        own = set(params.get("OPTIONS", {})) - CACHE_OPTIONS
        if own:
            raise ImproperlyConfigured(
                f"The Redis cache's OPTIONS {sorted(own)} are core.redis_breaker's to decide (REDIS_TIMEOUT)."
            )
        self._class = FactoryRedisCacheClient
