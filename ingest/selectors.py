"""Read queries of the ingest: the public pool counts."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from ingest.models import Contributor, Cycle
from leaderboard.models import Snapshot

# Scoring spec A1, as a filter: the same rule as Cycle.is_judged.
JUDGED = Q(assistant_steps__gt=0, edits__gt=0, edit_paths=1)


@dataclass(frozen=True, slots=True)
class PoolCounts:
    cycles: int
    judged: int
    contributors: int


def pool_counts() -> PoolCounts:
    """Stored and judged cycles, and contributors that have cycles and have not retracted."""
    totals = Cycle.objects.aggregate(cycles=Count("id"), judged=Count("id", filter=JUDGED))
    contributors = Contributor.objects.filter(retracted_at__isnull=True, cycles__isnull=False).distinct().count()
    return PoolCounts(cycles=totals["cycles"], judged=totals["judged"], contributors=contributors)


def newest_snapshot_id() -> str | None:
    """The id of the newest published ranking snapshot, as the 202 body and the stats report it."""
    newest = Snapshot.objects.published().values_list("id", flat=True).first()
    return None if newest is None else str(newest)
