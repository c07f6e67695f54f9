"""Recomputing the rankings: run while owed (run_owed), published (publish).

A recompute scores every stored cycle and publishes a snapshot in one transaction; contributions only
mark one owed (tasks.request_recompute), and the lock and owed flag (coordination.py) decide who runs it and
when. The thin Celery tasks (tasks.py) call run_owed; a publish announces itself on commit
(published.snapshot_published), and the tasks queue what follows it.

What is cheap is published first when a contribution is waiting for it (run_owed: the worker's path): once the
pool has changed, a snapshot of points alone (the scores, counts and
order, scoring.document.score_points, meta "intervals": "pending"), read from what changed since the worker
last read the pool whole, then the whole snapshot, read whole, with its intervals, rank ranges and B3. The pages
say which part is still being computed.
"""

import datetime as dt
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.models import Max
from django.db.models.functions import TruncDate
from django.utils import timezone

from core.backend import bulk_statements
from core.memory import return_freed_memory
from core.times import iso_z
from ingest.models import Contributor
from ingest.selectors import retracted_after, retractions_seen
from ingest.services import hold_retractions
from leaderboard import cycles_file
from leaderboard.cells import (
    cells_fingerprint,
    changed_pool_cells,
    forget_whole_read,
    pool_cells,
    remember_whole_read,
)
from leaderboard.coordination import Coordinator, coordinator, exclusive
from leaderboard.lenses import HARNESSES_KEY, shown_harnesses
from leaderboard.models import GroupScore, Snapshot
from leaderboard.public_names import name_decisions
from leaderboard.published import (
    AXIS_SAMPLES_KEY,
    announce_published,
    intervals_pending,
    newest_snapshot,
    read_document,
)
from leaderboard.selectors import scoring_config
from scoring import ScoringConfig
from scoring.cells import Cells, prepare_cells, score_cells
from scoring.document import Prepared, score_points
from scoring.shapes import PoolDocument

log = logging.getLogger(__name__)

# Scorings of one recompute in a row that a retraction may make stale before it gives up (the recompute the
# retraction queued follows).
PUBLISH_ATTEMPTS = 3


class RetractedMeanwhile(Exception):
    """A retraction committed after the pool was read: what was scored from it is not published."""


@dataclass(frozen=True)
class Ran:
    """What run_owed did: the last snapshot it published, and when to look again for work left owed."""

    published: Snapshot | None
    check_again_in: int | None


def run_owed(*, owe: bool = False) -> Ran:
    """Recompute while one is owed, unless another worker already is recomputing or the last recompute ended
    less than RECOMPUTE_MIN_INTERVAL ago. `owe`: mark one owed first (the beat's schedule: it also covers
    requests lost with a broker that was down).

    `published` is None when nothing was owed, the lock was held (its holder does the follow-up) or the
    cooldown was on (the work stays owed). `check_again_in`: the seconds after which to look again when work
    is left owed and no one has claimed that look yet: another holder's lock turned this one away (a live
    holder does the work itself, a dead one never will: one check per lapse of its lock), or the cooldown
    after the last recompute is on (one check for its end).
    """
    coord = coordinator()
    if owe:
        coord.mark_pending()
    published = _run_while_owed(coord)
    return Ran(published=published, check_again_in=coord.claim_follow_up() if coord.is_pending() else None)


def newest_is_unreadable() -> bool:
    """Whether the newest snapshot was stored under another document version, so it is not served
    (published.read_document): a release that moves the version leaves it so until a recompute publishes. Or
    whether it holds points alone: the recompute that was to publish its intervals did not (a worker killed)."""
    newest = Snapshot.objects.order_by("-id").only("id", "document").first()
    if newest is None:
        return False
    document = read_document(newest.document)
    return document is None or intervals_pending(document)


def _run_while_owed(coord: Coordinator) -> Snapshot | None:
    published = None
    while coord.is_pending() and coord.cooldown_left() <= 0:
        with exclusive(coord) as holding:
            if not holding:
                break
            while coord.cooldown_left() <= 0 and (owed := coord.pending_mark()) is not None:
                published = publish(points_first=True) or published
                # Cleared only once published, and only if no contribution raised it
                # meanwhile: a recompute that raises or is killed leaves it owed.
                coord.clear_pending(owed)
                # Contributions arriving from now on wait for the next interval, together.
                coord.start_cooldown()
        # A request that raised the flag between our last check and the unlock was
        # refused the lock: the loop picks it up.
    if published is not None:
        # Each publish let its whole read go before scoring: read again once, out of the lock and its cooldown, so
        # that the next contribution's points read only what it changed.
        remember_pool(close=False)
    return published


def publish(*, force: bool = False, points_first: bool = False) -> Snapshot | None:
    """Score every stored cycle and publish the result as a new snapshot.

    Publishing is one transaction: a recompute that fails or is killed leaves the
    previous snapshot served. Returns None when the pool is unchanged since the last
    snapshot (and force is off): equal input, equal rankings. A retraction that commits while
    the pool is scored makes the recompute score it again, so no snapshot published after a
    retraction's answer holds its cycles; None if that happens PUBLISH_ATTEMPTS times in a row.

    `points_first`: when the pool has changed, publish its points alone first (a snapshot marked as such), then
    the whole snapshot; the worker does, for the contributors waiting to see their cycles counted.
    """
    for _ in range(PUBLISH_ATTEMPTS):
        try:
            return _publish_once(force=force, points_first=points_first)
        except RetractedMeanwhile:
            log.info("recompute: a retraction committed while the pool was scored; scoring it again")
    return None


def _publish_once(*, force: bool, points_first: bool) -> Snapshot | None:
    started = time.perf_counter()
    # What earlier work freed, glibc keeps in the arenas of the threads that freed it, where this recompute's
    # threads may not reuse it: given back first, it is not under this one's peak (~160 MB at 10M cycles).
    return_freed_memory()
    config = scoring_config()
    decisions = name_decisions()
    # Points first, when a contribution waits: read only the cells contributions changed since this worker last
    # read the pool whole (cells.changed_pool_cells); the whole snapshot after them reads the pool whole.
    pool = _read_pool(config, decisions, changed_only=points_first, beside=points_first)
    previous = newest_snapshot()
    # A snapshot stored under another document version is not served (published.read_document): replace it.
    unchanged = (
        previous is not None
        and previous.fingerprint == pool.facts.fingerprint
        and previous.is_demo == pool.facts.is_demo
    )
    stored = read_document(previous.document) if previous is not None else None
    if not force and previous is not None and unchanged and stored is not None and not intervals_pending(stored):
        log.info("recompute: pool unchanged since snapshot %s", previous.id)
        # Its file may still hold cycles retracted since: stored after this snapshot read the pool and
        # before the file was read. Written again here, or the download would refuse until the pool changed.
        cycles_file.write_cycles_export(snapshot_id=previous.id)
        return None
    if points_first:
        # The cells this process kept: beside the whole snapshot's they would add to its peak (about 400 MB at ten
        # million cycles). They are read again once it is published (remember_pool).
        forget_whole_read()
    # Points first, when they are news: a pool unchanged since the newest snapshot (forced, its points published
    # by a recompute that then died, or stored under another document version) goes straight to the whole one.
    if points_first and not unchanged:
        now = timezone.now()
        points = score_points(pool.rows(config), config, generated=iso_z(now))
        _publish_scored(points, {}, pool.facts, now=now, started=started)
    if not pool.whole:
        del pool  # the merged cells go before the whole read, not after it
        pool = _read_pool(config, decisions, changed_only=False, beside=True)  # the whole snapshot reads it whole
    now = timezone.now()
    # Scores, then B3 and rank stability (which never raise: they say what they could not do). The point
    # scorecards made for the points above are prepared's, reused here when they were made from the whole pool.
    scored = score_cells(pool.rows(config), config, generated=iso_z(now), keep_axes=True)
    samples = {**scored.samples, AXIS_SAMPLES_KEY: scored.axis_samples}
    return _publish_scored(scored.document, samples, pool.facts, now=now, started=started)


@dataclass
class _Pool:
    """The pool as one read found it, and what is published beside its scores."""

    facts: "_Facts"
    whole: bool  # read whole, not merged from what changed since the last whole read
    cells: Cells | None
    prepared: Prepared | None

    def rows(self, config: ScoringConfig) -> Prepared:
        """The rows prepared for scoring; the cells are let go once they are (the prepared pairs hold them)."""
        if self.prepared is None:
            assert self.cells is not None
            self.prepared, self.cells = prepare_cells(self.cells, config), None
        return self.prepared


def _read_pool(config: ScoringConfig, decisions: dict[str, bool], *, changed_only: bool, beside: bool) -> _Pool:
    """The pool read whole, or (changed_only) merged from what contributions changed since this process last read
    it whole. `beside`: prepare the rows while the fingerprint is hashed, for a pool that has surely changed (a
    contribution waits): both read the same cells and leave the GIL for most of their work, so side by side they
    cost the longer of the two. Otherwise the rows are prepared only once the fingerprint says the pool changed."""
    # Read before the cells: they hold nobody whose retraction came up to it (ingest.selectors).
    seen = retractions_seen()
    if changed_only:
        cells, whole, changed = changed_pool_cells(decisions=decisions)
        beside = beside and changed  # nobody changed (a scheduled look): rows only if the fingerprint differs
    else:
        # Not remembered: kept through the scoring they would add to its peak (remember_pool reads them after).
        cells, whole = pool_cells(decisions=decisions), True
    how = "read whole" if whole else "the changed contributors' read again"
    log.info("recompute: loaded %d cycles as %d cells (%s)", cells.cycles, len(cells.frame), how)
    prepared = None
    if beside:
        with ThreadPoolExecutor(max_workers=1) as hashing:
            fingerprinted = hashing.submit(cells_fingerprint, cells, config)
            prepared = prepare_cells(cells, config)
            fingerprint = fingerprinted.result()
    else:
        fingerprint = cells_fingerprint(cells, config)
    demo_ids = set(Contributor.objects.filter(is_demo=True).values_list("id", flat=True))
    is_demo = bool(demo_ids) and bool(cells.frame["contributor"].isin(demo_ids).any())
    facts = _Facts(cells.cycles, fingerprint, is_demo, decisions, seen, shown_harnesses(cells))
    return _Pool(facts, whole, None if prepared is not None else cells, prepared)


@dataclass(frozen=True)
class _Facts:
    """What a recompute read, the same for the points it publishes first and the whole snapshot after them."""

    cycles: int
    fingerprint: str
    is_demo: bool
    decisions: dict[str, bool]
    retractions: int
    harnesses: list[str]


def _publish_scored(
    document: PoolDocument, samples: dict[str, Any], facts: _Facts, *, now: Any, started: float
) -> Snapshot:
    document["meta"][HARNESSES_KEY] = facts.harnesses  # the lenses ?harness= may choose
    what = "points" if intervals_pending(document) else "scores with intervals"
    log.info("recompute: %s scored in %.1f s", what, time.perf_counter() - started)
    snapshot = _store(
        document,
        samples,
        frame_rows=facts.cycles,
        fingerprint=facts.fingerprint,
        is_demo=facts.is_demo,
        decisions=facts.decisions,
        now=now,
        retractions=facts.retractions,
    )
    snapshot.compute_seconds = time.perf_counter() - started
    Snapshot.objects.filter(id=snapshot.id).update(compute_seconds=snapshot.compute_seconds)
    log.info("recompute: published snapshot %s (%s)", snapshot.id, what)
    return snapshot


def _store(
    document: PoolDocument,
    samples: dict[str, Any],
    *,
    frame_rows: int,
    fingerprint: str,
    is_demo: bool,
    decisions: dict[str, bool],
    now: Any,
    retractions: int,
) -> Snapshot:
    meta = document["meta"]
    points_only = intervals_pending(document)
    with transaction.atomic():
        snapshot = Snapshot.objects.create(
            created_at=now,
            cycles=frame_rows,
            judged=meta["judged"],
            contributors=meta["contributors"],
            fingerprint=fingerprint,
            is_demo=is_demo,
            document=document,
            samples=samples,
            name_decisions=decisions,
        )
        if points_only:
            # The score history and the samples wait for the whole snapshot, seconds behind: it replaces these
            # points in the history, and a page mid-way through a comparison keeps the samples it was reading.
            _hold_retractions_then_announce(snapshot, retractions, points_only=True)
            return snapshot
        # Pages compare on the newest snapshot only; older samples would only take space.
        Snapshot.objects.exclude(id=snapshot.id).exclude(samples={}).update(samples={})
        _keep_history_bounded(snapshot)
        GroupScore.objects.bulk_create(
            [
                GroupScore(
                    snapshot=snapshot,
                    view=view,
                    label=group["label"],
                    score_adj=group["scoreAdj"],
                    ci_lo=group["ci"][0] if group["ci"] else None,
                    ci_hi=group["ci"][1] if group["ci"] else None,
                    rank=group["rank"],
                    hjudged=group["hjudged"],
                )
                for view, body in document["views"].items()
                for group in body["groups"]
            ]
        )
        _hold_retractions_then_announce(snapshot, retractions, points_only=False)
    return snapshot


def _hold_retractions_then_announce(snapshot: Snapshot, retractions: int, *, points_only: bool) -> None:
    # Last, so retractions wait on this only while it commits. A retraction that commits before the
    # snapshot and was not seen by its cells makes it score again; one that commits after it is
    # answered after it, and queued a recompute of its own.
    hold_retractions()
    if retracted_after(retractions):
        raise RetractedMeanwhile
    # On commit the pages serve it and, for a whole snapshot, the worker writes its cycles.csv and warms its
    # windows (points alone are replaced within seconds: the previous export is served meanwhile).
    transaction.on_commit(lambda: announce_published(snapshot.id, points_only=points_only))


def _keep_history_bounded(newest: Snapshot) -> None:
    """One history point per group and UTC day (the day's newest snapshot), and few snapshots kept whole.

    The score history drops the points of today's earlier snapshots, which the newest replaces. Of the
    snapshots, the newest SNAPSHOTS_KEPT stay whole (a page may still be serving one published a moment
    ago; each export names its own); older ones that are the last of their day stay as the date of
    their history points, their document emptied; the rest go, with their points. However often
    recomputes publish, storage grows by one small row per day and per ranked group.
    """
    day_start = newest.created_at.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    GroupScore.objects.filter(snapshot__created_at__gte=day_start).exclude(snapshot=newest).delete()
    recent = list(Snapshot.objects.order_by("-id").values_list("id", flat=True)[: settings.SNAPSHOTS_KEPT])
    last_of_day = (
        Snapshot.objects.annotate(day=TruncDate("created_at", tzinfo=dt.UTC))
        .values("day")
        .annotate(last=Max("id"))
        .values("last")
    )
    older = Snapshot.objects.exclude(id__in=recent)
    older.exclude(id__in=last_of_day).only("id").delete()
    older.exclude(document={}).update(document={})


def remember_pool(*, close: bool = True) -> None:
    """Read the pool's cells whole and keep them in this process, so that the next contribution's points read only
    the cells it changed: as a worker starts (before its pool forks: `close` closes the database connection,
    which no forked process may share; the parent lets its copy go once they have), and after the worker
    publishes. Without PostgreSQL's cells, or without the database, nothing is kept."""
    if not bulk_statements():
        return
    try:
        remember_whole_read()
    except DatabaseError as error:
        log.warning("recompute: the pool was not read ahead (%s); the next contribution reads it whole", error)
    finally:
        if close:
            connections.close_all()


def export_newest_cycles() -> None:
    """Write the newest snapshot's cycles.csv if it is missing (a no-op when it is there)."""
    snapshot = newest_snapshot()
    if snapshot is not None:
        cycles_file.write_cycles_export(snapshot_id=snapshot.id)
