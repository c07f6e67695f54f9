"""What is published, read through one door: which snapshot is newest, which one this process serves, and its
document. The pages, the downloads, pool.json, the lab, the windows and the recompute read it here and nowhere
else; a window's own document is computed from the Published snapshot it belongs to (leaderboard.windows).

Which snapshot a process serves is named by the cache generation (core.page_cache): a new snapshot shows at once
in the publishing process and within SERVING_LOCAL_SECONDS in any other.
"""

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, cast

from django.db import connection
from django.db.models.fields.json import KeyTransform
from django.dispatch import Signal

from core import soft_cache
from core.backend import bulk_statements
from core.page_cache import GENERATION_KEY, bump_generation, cache_generation, forget_process_copies, process_cache
from core.times import iso_z
from leaderboard.models import Snapshot
from scoring.shapes import DOCUMENT_VERSION, INTERVALS_KEY, INTERVALS_PENDING, PoolDocument

# ---------------------------------------------------------------- the newest snapshot as stored


def newest_snapshot() -> Snapshot | None:
    """The newest published snapshot as stored (what the recompute and the day windows start from); the pages
    read current_snapshot, the one this process serves."""
    return Snapshot.objects.published().first()


def newest_snapshot_id() -> int | None:
    """The newest published snapshot's id, None before any."""
    newest: int | None = Snapshot.objects.published().values_list("id", flat=True).first()
    return newest


def read_document(stored: object) -> PoolDocument | None:
    """A stored document in the shape scoring.shapes names, or None for one stored under another version.

    Only the engine writes these, so the version vouches for every key: nothing downstream re-checks them.
    A snapshot stored under an older version is not read at all (as if not yet published) rather than read
    with fallbacks; the next recompute, or `manage.py recompute --force`, replaces it.
    """
    if not isinstance(stored, dict):
        return None
    meta = stored.get("meta")
    if not isinstance(meta, dict) or meta.get("document_version") != DOCUMENT_VERSION:
        return None
    return cast(PoolDocument, stored)


def intervals_pending(document: PoolDocument) -> bool:
    """Whether the document holds points alone, its intervals still being computed (leaderboard.recompute
    publishes a changed pool's points first)."""
    return document["meta"].get(INTERVALS_KEY) == INTERVALS_PENDING


def snapshot_document(snapshot: Snapshot) -> PoolDocument | None:
    """The published document with the snapshot's own identity in its meta; None when stored under another
    document version (read_document)."""
    stored = read_document(snapshot.document)
    if stored is None:
        return None
    meta = stored["meta"].copy()
    meta["snapshot"] = str(snapshot.id)
    meta["generated"] = iso_z(snapshot.created_at)
    meta["demo"] = snapshot.is_demo
    return PoolDocument(meta=meta, views=stored["views"])


# ---------------------------------------------------------------- the snapshot a process serves

# Which snapshot the current cache generation serves. Short-lived, so a publish that never
# bumps the generation (an admin shell) still shows within a minute.
SERVING_KEY: Final = "leaderboard:serving"
SERVING_SECONDS: Final = 60
# How long a process trusts its last look at the generation before asking the cache again.
SERVING_LOCAL_SECONDS: Final = 1.0


# This process's last look: (generation, snapshot id), in its own cache for SERVING_LOCAL_SECONDS.
LOOK_KEY: Final = "serving"
# The newest snapshot this process has read, in its own cache.
HELD_KEY: Final = "published"


def serving_snapshot() -> tuple[int, int]:
    """(cache generation, newest snapshot id or 0): usually from this process's last look,
    else one cache round trip, plus one query only when the generation has moved."""
    local = process_cache()
    look = local.get(LOOK_KEY)
    if look is not None:
        return cast(tuple[int, int], look)
    held = soft_cache.get_many([GENERATION_KEY, SERVING_KEY])
    if held is None:
        # The cache is unreachable: the newest snapshot from the database, and generation 0,
        # which names no shared cache entry (pages are then kept in this process only).
        snapshot_id = newest_snapshot_id() or 0
        local.set(LOOK_KEY, (0, snapshot_id), SERVING_LOCAL_SECONDS)
        return 0, snapshot_id
    generation = held.get(GENERATION_KEY)
    if generation is None:
        generation = cache_generation()
    serving = held.get(SERVING_KEY)
    if isinstance(serving, tuple | list) and len(serving) == 2 and serving[0] == generation:
        snapshot_id = int(serving[1])
    else:
        snapshot_id = newest_snapshot_id() or 0
        soft_cache.set(SERVING_KEY, (generation, snapshot_id), SERVING_SECONDS)
    local.set(LOOK_KEY, (int(generation), snapshot_id), SERVING_LOCAL_SECONDS)
    return int(generation), snapshot_id


# Sent once a publish has committed, with the new snapshot's snapshot_id. Its receivers are connected in
# LeaderboardConfig.ready, in the order they run: the pages first (serve_new_snapshot), then the worker's tasks.
snapshot_published = Signal()


def announce_published(snapshot_id: int, *, points_only: bool = False) -> None:
    """Tell every receiver of snapshot_published that snapshot `snapshot_id` is committed; `points_only`: it holds
    the points alone, and the whole snapshot follows (leaderboard.recompute)."""
    snapshot_published.send(sender=Snapshot, snapshot_id=snapshot_id, points_only=points_only)


def serve_new_snapshot(**signal: object) -> None:
    """After a publish commits: retire every cached page, and show the new snapshot here at once."""
    bump_generation()
    forget_process_copies()


@dataclass(frozen=True)
class Published:
    """The parts of a snapshot the pages read, kept per process for the newest one."""

    id: int
    created_at: datetime
    is_demo: bool
    cycles: int
    judged: int
    contributors: int
    # The stored document with the snapshot's id, time and demo mark in its meta.
    document: PoolDocument
    # The operator's decisions on names it was made with: its windows fold the same names.
    name_decisions: dict[str, bool] = field(default_factory=dict)


def current_snapshot() -> Published | None:
    """The newest published snapshot as this process serves it; None before the first."""
    return published_snapshot(serving_snapshot()[1])


def published_snapshot(snapshot_id: int) -> Published | None:
    """The snapshot of this id: one query the first time a process sees it (kept in its own cache); None when
    it is stored under an older document version, which the next recompute replaces."""
    if snapshot_id == 0:
        return None
    local = process_cache()
    held: Published | None = local.get(HELD_KEY)
    if held is not None and held.id == snapshot_id:
        return held
    snapshot = Snapshot.objects.filter(id=snapshot_id).defer("samples").first()
    if snapshot is None:
        return None
    document = snapshot_document(snapshot)
    if document is None:
        return None
    held = Published(
        id=snapshot.id,
        created_at=snapshot.created_at,
        is_demo=snapshot.is_demo,
        cycles=snapshot.cycles,
        judged=snapshot.judged,
        contributors=snapshot.contributors,
        document=document,
        name_decisions=snapshot.name_decisions,
    )
    local.set(HELD_KEY, held, None)
    return held


class Lazy:
    """The page's snapshot, fetched only if the page needs it (a window page does not)."""

    def __init__(self, snapshot_id: int) -> None:
        self.snapshot_id = snapshot_id

    def __call__(self) -> Published | None:
        return published_snapshot(self.snapshot_id)


# ---------------------------------------------------------------- a snapshot's stored samples


def stored_samples(snapshot_id: int, view: str, label_a: str, label_b: str) -> tuple[object, object]:
    """Two groups' stored bootstrap samples: one query that reads only those two lists of the snapshot."""
    in_view = KeyTransform(view, "samples")
    found = (
        Snapshot.objects.filter(id=snapshot_id)
        .annotate(samples_a=KeyTransform(label_a, in_view), samples_b=KeyTransform(label_b, in_view))
        .values_list("samples_a", "samples_b")
        .first()
    )
    return found if found is not None else (None, None)


# Where a snapshot's samples keep the per-axis resamples: {AXIS_SAMPLES_KEY: {view: {label: text}}} beside the views.
AXIS_SAMPLES_KEY = "axes"


def stored_comparison_samples(snapshot_id: int, view: str, label_a: str, label_b: str) -> tuple[object, ...]:
    """Two groups' stored score samples and per-axis samples (scoring.axis_samples text), in one query that reads
    only those four values; None for any the snapshot does not hold."""
    paths = ([view, label_a], [view, label_b], [AXIS_SAMPLES_KEY, view, label_a], [AXIS_SAMPLES_KEY, view, label_b])
    if bulk_statements():
        # Each reference to a large jsonb column unpacks it again (four paths, four times the read); the subquery
        # (kept whole by OFFSET 0) unpacks it once into a value the four paths share.
        table = connection.ops.quote_name(Snapshot._meta.db_table)  # the model's own table, not input
        shared = f"SELECT samples || '{{}}'::jsonb AS s FROM {table} WHERE id = %s OFFSET 0"  # noqa: S608
        sql = f"SELECT (s #> %s)::text, (s #> %s)::text, (s #> %s)::text, (s #> %s)::text FROM ({shared}) AS one"  # noqa: S608
        with connection.cursor() as cursor:
            cursor.execute(sql, (*paths, snapshot_id))
            row = cursor.fetchone()
        if row is None:
            return (None, None, None, None)
        return tuple(None if value is None else json.loads(value) for value in row)
    in_view, axes_in_view = KeyTransform(view, "samples"), KeyTransform(view, KeyTransform(AXIS_SAMPLES_KEY, "samples"))
    found = (
        Snapshot.objects.filter(id=snapshot_id)
        .annotate(
            samples_a=KeyTransform(label_a, in_view),
            samples_b=KeyTransform(label_b, in_view),
            axes_a=KeyTransform(label_a, axes_in_view),
            axes_b=KeyTransform(label_b, axes_in_view),
        )
        .values_list("samples_a", "samples_b", "axes_a", "axes_b")
        .first()
    )
    return found if found is not None else (None, None, None, None)
