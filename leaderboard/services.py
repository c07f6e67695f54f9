"""Writes of the leaderboard: recomputing and publishing ranking snapshots."""

import datetime as dt
import logging
import threading
import time
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.db.models.functions import TruncDate
from django.utils import timezone

from core.times import iso_z
from ingest.models import Contributor
from ingest.throttles import admit
from leaderboard import caching, exports, soft_cache
from leaderboard.cells import cells_fingerprint, pool_cells
from leaderboard.coordination import coordinator, exclusive
from leaderboard.models import GroupScore, NameDecision, Snapshot
from leaderboard.presenters import number
from leaderboard.public_names import name_decisions
from leaderboard.selectors import (
    cycles_frame,
    latest_snapshot,
    scoring_config,
    snapshot_document,
    stored_samples,
)
from leaderboard.windows import PRESET_DAYS, preset_window
from scoring import (
    Comparison,
    GroupNotRanked,
    Samples,
    compare_from_samples,
    compare_groups,
)
from scoring.cells import score_cells
from scoring.shapes import ViewName

log = logging.getLogger(__name__)

SCOPED_CACHE_SECONDS = 3600
SCOPED_LOCK_KEY = "scoped:computing"
SCOPED_LOCK_SECONDS = 300
# Stands in for SCOPED_LOCK_KEY while the cache is unreachable.
_window_lock = threading.Lock()


def recompute_after_new_cycles(**signal: Any) -> None:
    """ingest.hooks.cycles_changed's receiver: a contribution or retraction committed."""
    request_recompute()


def request_recompute() -> None:
    """Ask for a recompute after new data; ingest calls it with transaction.on_commit."""
    from leaderboard.tasks import recompute_rankings

    coordinator().mark_pending()
    recompute_rankings.delay()


def owe_a_recompute() -> None:
    """Mark a recompute as owed (the beat's schedule: it also covers requests lost with a broker that was down)."""
    coordinator().mark_pending()


def recompute_what_is_owed() -> int | None:
    """Recompute while one is owed; the seconds after which to look again when work is left owed and no
    one has claimed that look yet: another holder's lock turned this one away (a live holder does the work
    itself, a dead one never will: one check per lapse of its lock), or the cooldown after the last
    recompute is on (one check for its end)."""
    run_pending_recomputes()
    coord = coordinator()
    return coord.claim_follow_up() if coord.is_pending() else None


def run_pending_recomputes() -> Snapshot | None:
    """Recompute while one is owed, unless another worker already is recomputing or the last
    recompute ended less than RECOMPUTE_MIN_INTERVAL ago.

    Returns the last snapshot published here, or None when nothing was owed, the lock was held
    (its holder does the follow-up) or the cooldown was on (the work stays owed, and
    recompute_what_is_owed schedules the check for its end).
    """
    coord = coordinator()
    published = None
    while coord.is_pending() and coord.cooldown_left() <= 0:
        with exclusive(coord) as holding:
            if not holding:
                return published
            while coord.cooldown_left() <= 0 and (owed := coord.pending_mark()) is not None:
                published = recompute_snapshot() or published
                # Cleared only once published, and only if no contribution raised it
                # meanwhile: a recompute that raises or is killed leaves it owed.
                coord.clear_pending(owed)
                # Contributions arriving from now on wait for the next interval, together.
                coord.start_cooldown()
        # A request that raised the flag between our last check and the unlock was
        # refused the lock: the loop picks it up.
    return published


def recompute_snapshot(*, force: bool = False) -> Snapshot | None:
    """Score every stored cycle and publish the result as a new snapshot.

    Publishing is one transaction: a recompute that fails or is killed leaves the
    previous snapshot served. Returns None when the pool is unchanged since the last
    snapshot (and force is off): equal input, equal rankings.
    """
    started = time.perf_counter()
    config = scoring_config()
    decisions = name_decisions()
    cells = pool_cells(decisions=decisions)
    log.info("recompute: loaded %d cycles as %d cells", cells.cycles, len(cells.frame))
    fingerprint = cells_fingerprint(cells, config)
    demo_ids = set(Contributor.objects.filter(is_demo=True).values_list("id", flat=True))
    is_demo = bool(demo_ids) and bool(cells.frame["contributor"].isin(demo_ids).any())
    previous = latest_snapshot()
    if not force and previous is not None and previous.fingerprint == fingerprint and previous.is_demo == is_demo:
        log.info("recompute: pool unchanged since snapshot %s", previous.id)
        # Its file may still hold cycles retracted since: stored after this snapshot read the pool and
        # before the file was read. Written again here, or the download would refuse until the pool changed.
        exports.write_cycles_export(snapshot_id=previous.id)
        return None
    now = timezone.now()
    # Scores, then B3 and rank stability (which never raise: they say what they could not do).
    scored, _ = score_cells(cells, config, generated=iso_z(now))
    document, samples = scored.document, scored.samples
    log.info("recompute: scored in %.1f s", time.perf_counter() - started)
    snapshot = _publish(
        document=document,
        samples=samples,
        frame_rows=cells.cycles,
        fingerprint=fingerprint,
        is_demo=is_demo,
        decisions=decisions,
        now=now,
    )
    snapshot.compute_seconds = time.perf_counter() - started
    Snapshot.objects.filter(id=snapshot.id).update(compute_seconds=snapshot.compute_seconds)
    log.info("recompute: published snapshot %s", snapshot.id)
    return snapshot


def _publish(
    *,
    document: dict[str, Any],
    samples: Samples,
    frame_rows: int,
    fingerprint: str,
    is_demo: bool,
    decisions: dict[str, bool],
    now: Any,
) -> Snapshot:
    meta = document.get("meta", {})
    with transaction.atomic():
        snapshot = Snapshot.objects.create(
            created_at=now,
            cycles=frame_rows,
            judged=int(meta.get("judged") or 0),
            contributors=int(meta.get("contributors") or 0),
            fingerprint=fingerprint,
            is_demo=is_demo,
            document=document,
            samples=samples,
            name_decisions=decisions,
        )
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
                    ci_lo=(group.get("ci") or [None, None])[0],
                    ci_hi=(group.get("ci") or [None, None])[1],
                    rank=group.get("rank"),
                    hjudged=group["hjudged"],
                )
                for view, body in document.get("views", {}).items()
                for group in body.get("groups", [])
            ]
        )
        transaction.on_commit(caching.snapshot_published)
        transaction.on_commit(lambda: _queue_cycles_export(snapshot.id))
        transaction.on_commit(lambda: _queue_window_warming(snapshot.id))
    return snapshot


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


def _queue_cycles_export(snapshot_id: int) -> None:
    from leaderboard.tasks import export_cycles

    export_cycles.delay(snapshot_id)


def export_newest_cycles() -> None:
    """Write the newest snapshot's cycles.csv if it is missing (a no-op when it is there)."""
    snapshot = latest_snapshot()
    if snapshot is not None:
        exports.write_cycles_export(snapshot_id=snapshot.id)


def _queue_window_warming(snapshot_id: int) -> None:
    from leaderboard.tasks import warm_windows

    warm_windows.delay(snapshot_id)


def warm_windows(*, snapshot_id: int) -> None:
    """Compute the 90- and 30-day windows of a new snapshot before visitors ask for them."""
    snapshot = latest_snapshot()
    if snapshot is None or snapshot.id != snapshot_id:
        return  # a newer snapshot has its own warming queued
    today = timezone.now().date()
    for days in PRESET_DAYS:
        since, until = preset_window(days, today=today)
        try:
            scoped_document(since=since, until=until, snapshot=snapshot)
        except WindowBusy:
            log.info("warming: a %d-day window waits for a visitor; another window is computing", days)


# ---------------------------------------------------------------- day windows, computed on demand


class WindowBusy(Exception):
    """A day window cannot be computed right now (every slot taken, or this window or this client's other window
    is computing); come back in a few seconds."""

    retry_after = 5


class WindowLimited(WindowBusy):
    """This client asked for more new windows than WINDOW_RATE_PER_ADDRESS allows."""

    def __init__(self, retry_after: int) -> None:
        super().__init__()
        self.retry_after = retry_after


class _CacheUnreachable(Exception):
    pass


def _claim(keys: list[str]) -> list[str] | None:
    """Take every key (cache add) or none; the taken ones, or None when one was held."""
    taken: list[str] = []
    for key in keys:
        added = soft_cache.add(key, 1, SCOPED_LOCK_SECONDS)
        if added is None:
            for held in taken:
                soft_cache.delete(held)
            raise _CacheUnreachable
        if not added:
            for held in taken:
                soft_cache.delete(held)
            return None
        taken.append(key)
    return taken


def _claim_window(key: str, requester: str) -> list[str] | None:
    """The keys that let this request compute window `key`: the window's own (the same window asked twice at once
    is computed once), the requester's (one window at a time per client), and one of WINDOW_SLOTS shared slots
    (no client can hold them all). None when any is held; _CacheUnreachable without the cache."""
    own = [f"{SCOPED_LOCK_KEY}:window:{key}"] + ([f"{SCOPED_LOCK_KEY}:client:{requester}"] if requester else [])
    held = _claim(own)
    if held is None:
        return None
    for slot in range(settings.WINDOW_SLOTS):
        taken = _claim([f"{SCOPED_LOCK_KEY}:slot:{slot}"])
        if taken:
            return held + taken
    for taken_key in held:
        soft_cache.delete(taken_key)
    return None


def scoped_document(
    *, since: dt.date | None, until: dt.date | None, snapshot: Snapshot | None = None, requester: str = ""
) -> dict[str, Any] | None:
    """Rankings for a day window, computed on demand and cached per snapshot.

    None when nothing has been published yet. The all-time window is the snapshot itself. A window not
    yet computed costs its `requester` (a keyed digest of the client's address) one of its
    WINDOW_RATE_PER_ADDRESS and one of WINDOW_SLOTS; raises WindowLimited past the rate and WindowBusy when
    no slot is free, this window is computing, or this requester already computes another.
    """
    snapshot = snapshot or latest_snapshot()
    if snapshot is None:
        return None
    if since is None and until is None:
        return snapshot_document(snapshot)
    key = f"scoped:{snapshot.id}:{since}:{until}"
    document: dict[str, Any] | None = soft_cache.get(key)
    if document is not None:
        return document
    if requester:
        # Pages stay up without Redis: then this process counts the rate itself.
        admitted, wait = admit("window", requester, settings.WINDOW_RATE_PER_ADDRESS, counted_here_without_redis=True)
        if not admitted:
            raise WindowLimited(wait)
    try:
        claimed = _claim_window(key, requester)
        if claimed is None:
            raise WindowBusy
    except _CacheUnreachable:
        # The cache is unreachable: one window at a time in this process instead.
        claimed = None
        if not _window_lock.acquire(blocking=False):
            raise WindowBusy from None
    try:
        cells = pool_cells(since=since, until=until, decisions=snapshot.name_decisions)
        scored, _ = score_cells(cells, scoring_config(), since=since, until=until, generated=iso_z(snapshot.created_at))
        document = scored.document
        meta = dict(document.get("meta", {}))
        meta["snapshot"] = str(snapshot.id)
        meta["demo"] = snapshot.is_demo
        document["meta"] = meta
        soft_cache.set(key, document, SCOPED_CACHE_SECONDS)
    finally:
        if claimed is None:
            _window_lock.release()
        else:
            for held in claimed:
                soft_cache.delete(held)
    return document


# ---------------------------------------------------------------- comparing two published groups


def score_difference(
    snapshot_id: int, view: str, group_a: dict[str, Any], group_b: dict[str, Any]
) -> Comparison | None:
    """scoreAdj(A) - scoreAdj(B) with its cluster bootstrap-t interval, from the samples the recompute stored.

    Every group of a view is scored on the same resamples, so these are compare_groups' own numbers. A snapshot
    whose samples a newer one has retired (published between the page's look and this query) falls back to the
    engine, on the cycles of the newest pool.
    """
    samples_a, samples_b = stored_samples(snapshot_id, view, str(group_a["label"]), str(group_b["label"]))
    score_a, score_b = number(group_a.get("scoreAdj")), number(group_b.get("scoreAdj"))
    stored = isinstance(samples_a, list) and isinstance(samples_b, list) and bool(samples_a)
    # K of each side: the interval of the difference counts the smaller side's contributors (spec B1).
    k_a, k_b = group_a.get("contributors"), group_b.get("contributors")
    counted = isinstance(k_a, int) and isinstance(k_b, int)
    if stored and counted and score_a is not None and score_b is not None:
        return compare_from_samples(
            score_a=score_a,
            score_b=score_b,
            samples_a=samples_a,  # type: ignore[arg-type]  # checked to be lists above
            samples_b=samples_b,  # type: ignore[arg-type]
            contributors_a=int(k_a),  # type: ignore[arg-type]  # checked to be ints above
            contributors_b=int(k_b),  # type: ignore[arg-type]
        )
    try:
        return compare_groups(
            cycles_frame(),
            scoring_config(),
            view=cast(ViewName, view),  # a view of the published document
            label_a=str(group_a["label"]),
            label_b=str(group_b["label"]),
        )
    except GroupNotRanked:
        # The stored cycles changed since the snapshot (a retraction): say so rather than fail.
        log.info("compare: %s or %s is no longer ranked in %s", group_a["label"], group_b["label"], view)
        return None


def public_name_decide(*, name: str, shown: bool) -> NameDecision:
    """An operator allows a published name at once or denies it for good; the next recompute applies it."""
    decision, _ = NameDecision.objects.update_or_create(
        name=name, defaults={"shown": shown, "decided_at": timezone.now()}
    )
    transaction.on_commit(owe_a_recompute, robust=True)
    return decision


def public_name_forget(*, name: str) -> bool:
    """Drop the operator's decision on a name (the public-label rule decides again); whether there was one."""
    deleted, _ = NameDecision.objects.filter(name=name).delete()
    if deleted:
        transaction.on_commit(owe_a_recompute, robust=True)
    return bool(deleted)
