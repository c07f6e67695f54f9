"""Who may recompute, and whether one is owed.

Contributions arriving while a recompute runs only raise the "pending" flag; the
running one sees it and does one follow-up, so any burst coalesces into at most one
more recompute. A lock keeps two recomputes from ever running at once. With Redis
both live there (shared by every worker); without it, in this process.

Both survive a recompute that dies, even by SIGKILL or the OOM killer:

* The flag is a counter. A recompute reads it before starting and clears it only
  after publishing, and only if no contribution raised it meanwhile; a recompute that
  fails or is killed leaves it raised for the next one.
* The lock has a short time to live that a heartbeat thread of the holder renews while
  the recompute runs, so a live holder keeps it however long it computes, and a dead
  holder's lock is gone within LOCK_SECONDS.

Recomputes are also spaced: each one that completes starts a cooldown of
RECOMPUTE_MIN_INTERVAL seconds, during which owed work only stays owed, and one check is
scheduled for the moment it ends (claim_follow_up). However fast contributions arrive,
a worker recomputes at most once per interval, and what arrived meanwhile is in the next.
"""

import logging
import math
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Protocol

from django.conf import settings
from redis.exceptions import RedisError

from core import redis_breaker
from core.backend import LocalCoordinator

log = logging.getLogger(__name__)

LOCK_KEY = "pragmatikos:recompute:lock"
PENDING_KEY = "pragmatikos:recompute:pending"
# Set while a check is scheduled for when a blocking lock will have expired (see claim_follow_up).
FOLLOW_UP_KEY = "pragmatikos:recompute:follow-up"
# Set for RECOMPUTE_MIN_INTERVAL after each completed recompute; the next waits until it is gone.
COOLDOWN_KEY = "pragmatikos:recompute:cooldown"
# Set while a check is scheduled for when the cooldown will have ended.
COOLDOWN_FOLLOW_UP_KEY = "pragmatikos:recompute:cooldown-follow-up"

# Compare-and-act scripts: each checks the value it was given in the same step as it acts.
_RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('expire', KEYS[1], ARGV[2]) else return 0 end"
_DELETE_IF_EQUAL = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"


def lock_seconds() -> int:
    """The lock's time to live: how long a dead holder can block the next recompute."""
    return int(settings.RECOMPUTE_LOCK_SECONDS)


def min_interval_seconds() -> float:
    """How long after a completed recompute the next may start."""
    return float(settings.RECOMPUTE_MIN_INTERVAL)


class Coordinator(Protocol):
    def mark_pending(self) -> None: ...
    def pending_mark(self) -> int | None: ...
    def clear_pending(self, mark: int) -> bool: ...
    def is_pending(self) -> bool: ...
    def try_lock(self) -> bool: ...
    def renew_lock(self) -> bool: ...
    def unlock(self) -> None: ...
    def start_cooldown(self) -> None: ...
    def cooldown_left(self) -> float: ...
    def claim_follow_up(self) -> int | None: ...


class RedisCoordinator:
    def __init__(self, url: str) -> None:
        # The process's one client of this Redis: short timeouts and no retries, so a hung Redis costs a
        # contribution's commit hook one timeout, not twenty seconds of retries.
        self.client = redis_breaker.client(url)
        self.token = uuid.uuid4().hex  # whose lock it is: each coordinator is a would-be holder

    def mark_pending(self) -> None:
        self.client.incr(PENDING_KEY)

    def pending_mark(self) -> int | None:
        """The flag's current value, to clear it later only if it has not moved; None when nothing is owed."""
        raw = self.client.get(PENDING_KEY)
        return None if raw is None else int(raw)

    def clear_pending(self, mark: int) -> bool:
        return bool(self.client.eval(_DELETE_IF_EQUAL, 1, PENDING_KEY, str(mark)))

    def is_pending(self) -> bool:
        return bool(self.client.exists(PENDING_KEY))

    def try_lock(self) -> bool:
        return bool(self.client.set(LOCK_KEY, self.token, nx=True, ex=lock_seconds()))

    def renew_lock(self) -> bool:
        """Extend our own lock's time to live; False when it is no longer ours."""
        return bool(self.client.eval(_RENEW, 1, LOCK_KEY, self.token, lock_seconds()))

    def unlock(self) -> None:
        self.client.eval(_DELETE_IF_EQUAL, 1, LOCK_KEY, self.token)

    def start_cooldown(self) -> None:
        milliseconds = int(min_interval_seconds() * 1000)
        if milliseconds > 0:
            self.client.set(COOLDOWN_KEY, "1", px=milliseconds)

    def cooldown_left(self) -> float:
        """Seconds until the next recompute may start; 0 when it may now."""
        remaining = int(self.client.pttl(COOLDOWN_KEY))  # -2: none; -1: no expiry (never set so by us)
        return 0.0 if remaining == -2 else (min_interval_seconds() if remaining == -1 else remaining / 1000)

    def claim_follow_up(self) -> int | None:
        """Seconds until owed work can be done, if no one has yet claimed the check for that moment.

        Another holder's lock: a live holder does every owed recompute itself; a dead one never
        will. Whoever is turned away by the lock while a recompute is owed claims one check for
        when the lock will have lapsed, so a dead holder delays the work by at most the lock's
        time to live, and a burst turned away by a live holder schedules one check, not one each.

        No lock, but the cooldown after the last recompute: one check for the moment it ends,
        claimed once however many contributions arrive meanwhile. The holder claims it itself
        once it has let the lock go, so the owed work waits for the cooldown, not for the lock.
        """
        remaining = int(self.client.ttl(LOCK_KEY))  # -2: gone since; -1: no expiry (never set so by us)
        key = FOLLOW_UP_KEY
        if remaining != -2:
            delay = (lock_seconds() if remaining == -1 else remaining) + 1
        elif (cooling := self.cooldown_left()) > 0:
            key, delay = COOLDOWN_FOLLOW_UP_KEY, math.ceil(cooling)
        else:
            delay = 1
        if not self.client.set(key, "1", nx=True, ex=delay):
            return None
        return delay


@cache
def _local() -> LocalCoordinator:
    return LocalCoordinator()


def coordinator() -> Coordinator:
    if settings.REDIS_URL:
        return RedisCoordinator(settings.REDIS_URL)
    return _local()


class LockHeartbeat:
    """Renews the holder's lock every third of its time to live until stopped."""

    def __init__(self, coord: Coordinator) -> None:
        self.coord = coord
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="recompute-lock-heartbeat", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join()

    def _run(self) -> None:
        while not self.stopped.wait(max(lock_seconds() / 3, 0.1)):
            try:
                if not self.coord.renew_lock():
                    # Expired while we computed (a stall longer than its life): another
                    # recompute may start; publishing is one transaction either way.
                    log.warning("recompute lock lost to expiry; another recompute may run alongside")
                    return
            except RedisError:
                log.warning("recompute lock not renewed: Redis unreachable; retrying", exc_info=True)


@contextmanager
def exclusive(coord: Coordinator) -> Iterator[bool]:
    """Hold the recompute lock for the block, renewed while it runs; yields False when another holder has it."""
    if not coord.try_lock():
        yield False
        return
    heartbeat = LockHeartbeat(coord)
    heartbeat.start()
    try:
        yield True
    finally:
        heartbeat.stop()
        coord.unlock()
