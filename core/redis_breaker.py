"""Redis as the web process reaches it: one client factory with short timeouts, and one circuit breaker.

A Redis that refuses fails a call at once; a Redis that hangs (stopped, not down) makes every call wait
its socket timeout. So after one call fails, Redis is treated as down in this process for DOWN_SECONDS:
every caller (the page cache, the throttle counters, the pool counts) is answered at once as if it were
unreachable, instead of each waiting the timeout. When that time is up one call probes it while the
others still fail fast; a probe that answers closes the breaker, one that fails opens it again.
"""

import logging
import threading
import time
from collections.abc import Callable
from functools import cache
from typing import TypeVar

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

logger = logging.getLogger(__name__)

DOWN_SECONDS = 5.0

T = TypeVar("T")

_lock = threading.Lock()
_down_until = 0.0  # 0: closed; in the future: open; in the past: one probe may go
_probing = False
_failures = 0


class RedisDown(Exception):
    """Redis was not asked (the breaker is open) or did not answer (the call failed and opened it)."""


def timeout_seconds() -> float:
    """Connect and read timeout of every Redis client of the web process (REDIS_TIMEOUT)."""
    return float(settings.REDIS_TIMEOUT)


@cache
def _client(url: str, timeout: float) -> redis.Redis:
    # One connection pool per URL and process (redis-py starts a fresh one in a forked child). No retries:
    # redis-py's default retries a timed-out call three times with backoff, about 10 s on a hung Redis
    # at a 0.5 s timeout; the breaker, not the client, decides when to ask again.
    return redis.Redis.from_url(
        url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), retries=0)
    )


def client(url: str) -> redis.Redis:
    """The client of this Redis URL, with the configured short timeouts."""
    return _client(url, timeout_seconds())


def reset() -> None:
    """Close the breaker: ask Redis again on the next call (tests; after Redis comes back)."""
    global _down_until, _probing, _failures
    with _lock:
        _down_until, _probing, _failures = 0.0, False, 0


def is_down() -> bool:
    """Whether a recent call found Redis unreachable (it is not being asked for now)."""
    return _down_until != 0.0 and (time.monotonic() < _down_until or _probing)


def failures() -> int:
    """How many calls have failed since the last reset: each one waited its timeout or was refused."""
    return _failures


def _enter() -> bool:
    """Let a call through (True when it is the probe), or raise RedisDown."""
    global _probing
    with _lock:
        if _down_until == 0.0:
            return False
        if time.monotonic() < _down_until or _probing:
            raise RedisDown
        _probing = True
        return True


def _failed(error: Exception) -> None:
    global _down_until, _probing, _failures
    with _lock:
        quiet = _down_until != 0.0
        _failures += 1
        _down_until = time.monotonic() + DOWN_SECONDS
        _probing = False
        count = _failures
    if not quiet:
        logger.warning("Redis is unreachable (%s); not asked again for %.0f s [%d]", error, DOWN_SECONDS, count)


def _abandoned(probe: bool) -> None:
    """The call raised something else than a Redis error: it tells nothing of Redis, so let another probe go."""
    global _probing
    if probe:
        with _lock:
            _probing = False


def _answered(probe: bool) -> None:
    global _down_until, _probing
    if probe:
        with _lock:
            _down_until, _probing = 0.0, False
        logger.info("Redis answers again")


def guarded(call: Callable[[], T]) -> T:
    """Make one Redis call through the breaker: its result, or RedisDown when Redis is or just went unreachable."""
    probe = _enter()
    try:
        result = call()
    except RedisError as error:
        _failed(error)
        raise RedisDown from error
    except BaseException:
        _abandoned(probe)
        raise
    _answered(probe)
    return result
