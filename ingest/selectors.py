"""Read queries of the ingest: the public pool counts."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Final

from django.core.cache import cache
from django.db.models import Count, Q
from redis.exceptions import RedisError

from ingest.models import Contributor, Cycle
from leaderboard.models import Snapshot

# Scoring spec A1, as a filter: the same rule as Cycle.is_judged.
JUDGED = Q(assistant_steps__gt=0, edits__gt=0, edit_paths=1)

# The stats endpoint counts the whole cycles table: the counts are cached for this long, and
# forgotten as soon as a contribution or retraction changes the rows (forget_pool_counts).
POOL_COUNTS_CACHE_KEY: Final = "ingest:pool-counts"
POOL_COUNTS_SECONDS: Final = 30

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PoolCounts:
    cycles: int
    judged: int
    contributors: int


def count_pool() -> PoolCounts:
    """Stored and judged cycles, and contributors that have cycles and have not retracted."""
    totals = Cycle.objects.aggregate(cycles=Count("id"), judged=Count("id", filter=JUDGED))
    contributors = Contributor.objects.filter(retracted_at__isnull=True, cycles__isnull=False).distinct().count()
    return PoolCounts(cycles=totals["cycles"], judged=totals["judged"], contributors=contributors)


def pool_counts() -> PoolCounts:
    """count_pool(), cached for POOL_COUNTS_SECONDS; counted afresh when the cache is down (a read, so no harm)."""
    try:
        cached = cache.get(POOL_COUNTS_CACHE_KEY)
    except RedisError:
        logger.warning("the cache is unreachable; counting the pool without it")
        return count_pool()
    if isinstance(cached, PoolCounts):
        return cached
    counts = count_pool()
    try:
        cache.set(POOL_COUNTS_CACHE_KEY, counts, POOL_COUNTS_SECONDS)
    except RedisError:
        logger.warning("the cache is unreachable; the pool counts are not cached")
    return counts


def forget_pool_counts() -> None:
    """Drop the cached counts, so the stats count the rows a commit just changed."""
    cache.delete(POOL_COUNTS_CACHE_KEY)


def newest_snapshot_id() -> str | None:
    """The id of the newest published ranking snapshot, as the 202 body and the stats report it."""
    newest = Snapshot.objects.published().values_list("id", flat=True).first()
    return None if newest is None else str(newest)
