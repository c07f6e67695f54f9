"""Read queries of the ingest: the public pool counts, and how far the retractions a reader saw go."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from datetime import date
from typing import Final

from django.core.cache import cache
from django.db.models import Count, Max, Q

from core import redis_breaker
from core.redis_breaker import RedisDown
from ingest.models import JUDGED_RULE, Contributor, Cycle, CycleQuerySet, Retraction, install_hash

# The stats endpoint counts the whole cycles table: the counts are cached for this long, and
# forgotten as soon as a contribution or retraction changes the rows (forget_pool_counts).
POOL_COUNTS_CACHE_KEY: Final = "ingest:pool-counts"
POOL_VERSION_KEY: Final = "ingest:pool-version"
POOL_COUNTS_SECONDS: Final = 30


@dataclass(frozen=True, slots=True)
class PoolCounts:
    cycles: int
    judged: int
    contributors: int


def count_pool() -> PoolCounts:
    """Cycles in the pool, those judged, and the contributors who sent them."""
    pool = Cycle.objects.in_pool()
    totals = pool.aggregate(
        cycles=Count("id"),
        judged=Count("id", filter=JUDGED_RULE),
        contributors=Count("contributor", distinct=True),
    )
    return PoolCounts(cycles=totals["cycles"], judged=totals["judged"], contributors=totals["contributors"])


@dataclass(frozen=True, slots=True)
class InstallCounts:
    """One install's cycles as the service holds them: stored, judged (scoring spec A1), and those whose ship
    window was still open when sent (tshipe 1: the recorder sends them again once it closes)."""

    stored: int
    judged: int
    pending: int


def install_counts(install: uuid.UUID) -> InstallCounts | None:
    """The counts of the install's stored cycles (all 0 for an install never seen); None once it has retracted."""
    digest = install_hash(install)
    if Retraction.objects.filter(install_hash=digest).exists():
        return None
    totals = Cycle.objects.filter(contributor__install_hash=digest).aggregate(
        stored=Count("id"),
        judged=Count("id", filter=JUDGED_RULE),
        pending=Count("id", filter=Q(ship_status=Cycle.ShipStatus.PENDING)),
    )
    return InstallCounts(stored=totals["stored"], judged=totals["judged"], pending=totals["pending"])


def pool_cycles(*, since: date | None = None, until: date | None = None) -> CycleQuerySet:
    """The cycles a ranking is computed from, optionally within days [since, until]."""
    cycles = Cycle.objects.in_pool()
    if since is not None:
        cycles = cycles.filter(day__gte=since)
    if until is not None:
        cycles = cycles.filter(day__lte=until)
    return cycles


def demo_set_aside() -> bool:
    """Whether demo contributors are stored. While any real cycle is stored theirs count nowhere, so a page on a
    real pool can say that the demo it showed before is hidden."""
    return Contributor.objects.filter(is_demo=True).exists()


def pool_counts() -> PoolCounts:
    """count_pool(), cached for POOL_COUNTS_SECONDS; counted afresh when the cache is down (a read, so no harm).

    The cached counts carry the version of the pool they were counted at. A commit that changes rows
    bumps the version (forget_pool_counts), so counts begun before it, but stored after it, are never
    served: the stats show a 202's rows at once, not up to 30 seconds later.
    """
    try:
        held = redis_breaker.guarded(lambda: cache.get_many([POOL_COUNTS_CACHE_KEY, POOL_VERSION_KEY]))
    except RedisDown:
        return count_pool()
    version = held.get(POOL_VERSION_KEY, 0)
    cached = held.get(POOL_COUNTS_CACHE_KEY)
    if isinstance(cached, tuple) and len(cached) == 2 and cached[0] == version and isinstance(cached[1], PoolCounts):
        return cached[1]
    counts = count_pool()
    with contextlib.suppress(RedisDown):  # not kept: the next request counts again
        redis_breaker.guarded(lambda: cache.set(POOL_COUNTS_CACHE_KEY, (version, counts), POOL_COUNTS_SECONDS))
    return counts


def _bump_pool_version() -> None:
    try:
        cache.incr(POOL_VERSION_KEY)
    except ValueError:  # no version yet
        cache.add(POOL_VERSION_KEY, 1, None)
        cache.incr(POOL_VERSION_KEY)


def forget_pool_counts() -> None:
    """Retire the cached counts, so the stats count the rows a commit just changed (RedisDown when unreachable)."""
    redis_breaker.guarded(_bump_pool_version)


def retractions_seen() -> int:
    """The order of the last retraction that deleted cycles and that this transaction sees (0 for none).

    Orders are given in the order retractions commit (ingest.services.retract), so a reader that takes it
    before (or in the same snapshot as) reading cycles or cells has seen every retraction up to it and
    none after: retracted_after(it) says whether someone it read has retracted since.
    """
    return Contributor.objects.aggregate(seen=Max("retraction_order"))["seen"] or 0


def retracted_after(seen: int, *, numbered_up_to: int | None = None) -> bool:
    """Whether a retraction committed after `seen` (retractions_seen) was read: of a contributor numbered up
    to `numbered_up_to` when given (nobody numbered above can be in what was read)."""
    later = Contributor.objects.filter(retraction_order__gt=seen)
    if numbered_up_to is not None:
        later = later.filter(number__lte=numbered_up_to)
    return later.exists()
