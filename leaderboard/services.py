"""Writes of the leaderboard: recomputing and publishing ranking snapshots."""

import logging
import time
from typing import Any

from django.db import transaction
from django.utils import timezone

from ingest.models import Contributor
from leaderboard import exports, soft_cache
from leaderboard.coordination import coordinator, exclusive
from leaderboard.models import GroupScore, Snapshot
from leaderboard.selectors import (
    WindowBusy,
    cycles_fingerprint,
    cycles_frame,
    latest_snapshot,
    preset_window,
    scoped_document,
    scoring_config,
)
from scoring import Samples, enrich_document, score_pool
from scoring.document import prepare

log = logging.getLogger(__name__)

# Pages cache under this generation; bumping it after each publish retires every old entry.
GENERATION_KEY = "leaderboard:generation"
# The day windows the pages offer besides all time.
PRESET_WINDOW_DAYS = (90, 30)


def recompute_after_new_cycles(**signal: Any) -> None:
    """ingest.hooks.cycles_changed's receiver: a contribution or retraction committed."""
    request_recompute()


def request_recompute() -> None:
    """Ask for a recompute after new data; ingest calls it with transaction.on_commit."""
    from leaderboard.tasks import recompute_rankings

    coordinator().mark_pending()
    recompute_rankings.delay()


def run_pending_recomputes() -> Snapshot | None:
    """Recompute while one is owed, unless another worker already is recomputing.

    Returns the last snapshot published here, or None when nothing was owed or the
    lock was held (its holder does the follow-up).
    """
    coord = coordinator()
    published = None
    while coord.is_pending():
        with exclusive(coord) as holding:
            if not holding:
                return published
            while (owed := coord.pending_mark()) is not None:
                published = recompute_snapshot() or published
                # Cleared only once published, and only if no contribution raised it
                # meanwhile: a recompute that raises or is killed leaves it owed.
                coord.clear_pending(owed)
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
    frame = cycles_frame()
    log.info("recompute: loaded %d cycles", len(frame))
    fingerprint = cycles_fingerprint(frame, config)
    demo_ids = set(Contributor.objects.filter(is_demo=True).values_list("id", flat=True))
    is_demo = bool(demo_ids) and bool(frame["contributor"].isin(demo_ids).any())
    previous = latest_snapshot()
    if not force and previous is not None and previous.fingerprint == fingerprint and previous.is_demo == is_demo:
        log.info("recompute: pool unchanged since snapshot %s", previous.id)
        return None
    now = timezone.now()
    # Prepared once (sorted, labelled, judged) for both the scores and the enrichment.
    prepared = prepare(frame, config, None, None)
    generated = now.isoformat().replace("+00:00", "Z")
    scored = score_pool(frame, config, generated=generated, prepared=prepared)
    document, samples = scored.document, scored.samples
    enrich_document(
        document, frame, config, prepared=prepared
    )  # B3 and rank stability; never raises, says what it could not do
    log.info("recompute: scored in %.1f s", time.perf_counter() - started)
    snapshot = _publish(
        document=document, samples=samples, frame_rows=len(frame), fingerprint=fingerprint, is_demo=is_demo, now=now
    )
    snapshot.compute_seconds = time.perf_counter() - started
    Snapshot.objects.filter(id=snapshot.id).update(compute_seconds=snapshot.compute_seconds)
    log.info("recompute: published snapshot %s", snapshot.id)
    return snapshot


def _publish(
    *, document: dict[str, Any], samples: Samples, frame_rows: int, fingerprint: str, is_demo: bool, now: Any
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
        )
        # Pages compare on the newest snapshot only; older samples would only take space.
        Snapshot.objects.exclude(id=snapshot.id).exclude(samples={}).update(samples={})
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
        transaction.on_commit(bump_generation)
        transaction.on_commit(lambda: _queue_cycles_export(snapshot.id))
        transaction.on_commit(lambda: _queue_window_warming(snapshot.id))
    return snapshot


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
    for days in PRESET_WINDOW_DAYS:
        since, until = preset_window(days, today=today)
        try:
            scoped_document(since=since, until=until, snapshot=snapshot)
        except WindowBusy:
            log.info("warming: a %d-day window waits for a visitor; another window is computing", days)


def bump_generation() -> None:
    # Unreachable cache: nothing to retire, and pages read the newest snapshot from the database.
    try:
        soft_cache.incr(GENERATION_KEY)
    except ValueError:
        soft_cache.set(GENERATION_KEY, 1, None)


def cache_generation() -> int:
    """The current generation; 0 while the cache is unreachable (a key no entry was stored under)."""
    generation = soft_cache.get(GENERATION_KEY)
    if generation is None:
        if soft_cache.add(GENERATION_KEY, 1, None) is None:
            return 0
        generation = soft_cache.get(GENERATION_KEY)
    return int(generation or 0)
