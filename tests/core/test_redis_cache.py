"""The shared cache's Redis client is core.redis_breaker's: one place decides Redis timeouts and retries."""

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured

from core import redis_breaker
from tests.redis_servers import OwnRedis, redis_cache

TIMEOUT = 0.3


@pytest.fixture
def own_redis(settings: Any) -> Iterator[OwnRedis]:
    server = OwnRedis()
    settings.CACHES = redis_cache(server.port)
    settings.REDIS_TIMEOUT = TIMEOUT
    yield server
    server.close()


def test_the_cache_asks_redis_through_the_factorys_client(settings: Any) -> None:
    if not settings.REDIS_URL:
        pytest.skip("the tests run without Redis")
    location = settings.CACHES["default"]["LOCATION"]
    cache = caches["default"]
    assert cache._cache.get_client() is redis_breaker.client(location)  # type: ignore[attr-defined]
    assert cache._cache.get_client(write=True) is redis_breaker.client(location)  # type: ignore[attr-defined]
    cache.set("redis-cache:probe", {"a": 1}, 30)
    assert cache.get("redis-cache:probe") == {"a": 1}


def test_a_hung_redis_costs_a_cache_call_one_timeout_not_a_retry_each(own_redis: OwnRedis) -> None:
    cache = caches["default"]
    cache.set("redis-cache:probe", 1, 30)  # a pooled connection now exists
    own_redis.hang()
    started = time.monotonic()
    with pytest.raises(redis.TimeoutError):
        cache.get("redis-cache:probe")
    took = time.monotonic() - started
    # A client of redis-py's defaults (Redis.from_url) retries a timed-out call three times, with backoff.
    assert 0.8 * TIMEOUT <= took < 2 * TIMEOUT, took


def test_the_cache_follows_the_configured_timeout(own_redis: OwnRedis, settings: Any) -> None:
    settings.REDIS_TIMEOUT = 0.6
    pool = caches["default"]._cache.get_client().connection_pool  # type: ignore[attr-defined]
    assert pool.connection_kwargs["socket_timeout"] == 0.6
    assert pool.connection_kwargs["socket_connect_timeout"] == 0.6


def test_the_cache_refuses_timeouts_of_its_own(settings: Any) -> None:
    caches_with_options = redis_cache(1)
    caches_with_options["default"]["OPTIONS"] = {"socket_timeout": 5}
    settings.CACHES = caches_with_options
    with pytest.raises(ImproperlyConfigured, match="REDIS_TIMEOUT"):
        caches["default"]
