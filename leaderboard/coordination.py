"""Who may recompute, and whether one is owed.

Contributions arriving while a recompute runs only raise the "pending" flag; the
running one sees it and does one follow-up, so any burst coalesces into at most one
more recompute. A lock keeps two recomputes from ever running at once. With Redis
both live there (shared by every worker); without it, in this process.
"""

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Protocol

import redis
from django.conf import settings

LOCK_KEY = "pragmatikos:recompute:lock"
PENDING_KEY = "pragmatikos:recompute:pending"
# Ten times a recompute at a million cycles; a killed holder's lock expires by itself.
LOCK_SECONDS = 300


class Coordinator(Protocol):
    def mark_pending(self) -> None: ...
    def take_pending(self) -> bool: ...
    def is_pending(self) -> bool: ...
    def try_lock(self) -> bool: ...
    def unlock(self) -> None: ...


class RedisCoordinator:
    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.token = uuid.uuid4().hex

    def mark_pending(self) -> None:
        self.client.set(PENDING_KEY, "1")

    def take_pending(self) -> bool:
        return self.client.getdel(PENDING_KEY) is not None

    def is_pending(self) -> bool:
        return bool(self.client.exists(PENDING_KEY))

    def try_lock(self) -> bool:
        return bool(self.client.set(LOCK_KEY, self.token, nx=True, ex=LOCK_SECONDS))

    def unlock(self) -> None:
        # Delete only our own lock: compare and delete in one step.
        script = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
        self.client.eval(script, 1, LOCK_KEY, self.token)


class LocalCoordinator:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pending = threading.Event()

    def mark_pending(self) -> None:
        self.pending.set()

    def take_pending(self) -> bool:
        was = self.pending.is_set()
        self.pending.clear()
        return was

    def is_pending(self) -> bool:
        return self.pending.is_set()

    def try_lock(self) -> bool:
        return self.lock.acquire(blocking=False)

    def unlock(self) -> None:
        self.lock.release()


@cache
def _local() -> LocalCoordinator:
    return LocalCoordinator()


def coordinator() -> Coordinator:
    if settings.REDIS_URL:
        return RedisCoordinator(settings.REDIS_URL)
    return _local()


@contextmanager
def exclusive(coord: Coordinator) -> Iterator[bool]:
    """Hold the recompute lock for the block; yields False when another holder has it."""
    if not coord.try_lock():
        yield False
        return
    try:
        yield True
    finally:
        coord.unlock()
