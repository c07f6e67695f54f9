"""Windows of a ranking: the pages' presets and custom days, pool.json's since/until, and a harness lens (read
from the query by pages.windowed), computed on demand, at most WINDOW_SLOTS at once (each client one at a time, the
same window once), and cached per snapshot. The contract accepts no cycle before its first day or after tomorrow,
so no window reaching outside those days could differ from one inside them. A window may also narrow the pool
to one harness's cycles (?harness=); whether the pool has that harness is the snapshot's to say (lenses.py).
"""

import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, Final

from django.conf import settings
from django.utils import timezone

from core import soft_cache
from core.backend import process_lock
from core.throttles import admit
from core.times import iso_z
from ingest.selectors import retracted_after, retractions_seen
from leaderboard.lenses import HARNESSES_KEY, published_harnesses
from leaderboard.models import Snapshot
from leaderboard.published import (
    AXIS_SAMPLES_KEY,
    Published,
    newest_snapshot,
    newest_snapshot_id,
    read_document,
    snapshot_document,
)
from leaderboard.selectors import scoring_config
from scoring.shapes import PoolDocument

if TYPE_CHECKING:
    from scoring.cells import Cells
    from scoring.config import ScoringConfig
    from scoring.document import ScoredPool

log = logging.getLogger(__name__)

# The day windows the pages offer besides all time, and warm after each publish.
PRESET_DAYS: Final = (90, 30)


class WindowError(ValueError):
    """A day or window that cannot be read: the message names the parameter and says what it wants."""


class UnknownHarness(WindowError):
    """A harness the published pool does not show: absent, folded into "(other)", or not yet published."""


def preset_window(days: int, *, today: date) -> tuple[date, date]:
    """The last `days` days up to today."""
    return today - timedelta(days=days - 1), today


def check_harness(document: Mapping[str, Any], harness: str) -> None:
    """UnknownHarness unless the published document names `harness`; the message lists only shown names."""
    shown = published_harnesses(document)
    if harness in shown:
        return
    if not shown:
        raise UnknownHarness("harness: this ranking has no harness to choose yet.")
    raise UnknownHarness(f"harness must be one of the harnesses this pool shows: {', '.join(shown)}.")


@dataclass(frozen=True)
class Window:
    """A window the pages show: its name (all, 90, 30, custom), its days, the harness whose cycles it holds
    (None: every harness), or why it cannot be shown."""

    name: str
    since: date | None = None
    until: date | None = None
    error: str = ""
    harness: str | None = None

    @property
    def is_all_time(self) -> bool:
        return self.since is None and self.until is None

    @property
    def is_snapshot(self) -> bool:
        """Whether the window is the published snapshot itself: all time, every harness."""
        return self.is_all_time and self.harness is None


def scope_key(snapshot_id: int, since: date | None, until: date | None, harness: str | None = None) -> str:
    """The one cache key of a window (days and harness) of one snapshot; its samples are kept at key + ":samples"."""
    return f"scoped:{snapshot_id}:{since}:{until}" + (f":harness={harness}" if harness else "")


def window_samples(snapshot_id: int, window: Window, view: str, label_a: str, label_b: str) -> tuple[object, ...]:
    """Two groups' score samples and per-axis samples (as leaderboard.published.stored_comparison_samples) of a
    computed window, from the resamples it was scored on, kept beside it; None for any no longer cached."""
    samples = soft_cache.get(scope_key(snapshot_id, window.since, window.until, window.harness) + ":samples") or {}
    in_view, axes = samples.get(view) or {}, (samples.get(AXIS_SAMPLES_KEY) or {}).get(view) or {}
    return in_view.get(label_a), in_view.get(label_b), axes.get(label_a), axes.get(label_b)


# ---------------------------------------------------------------- computed on demand

SCOPED_CACHE_SECONDS = 3600
SCOPED_LOCK_KEY = "scoped:computing"
SCOPED_LOCK_SECONDS = 300
# Without the cache, one window at a time in this process (core.backend.process_lock).
WINDOW_LOCK = "day-window"


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


def on_demand_slots() -> list[str]:
    """The WINDOW_SLOTS shared slots of the windows visitors ask for."""
    return [f"{SCOPED_LOCK_KEY}:slot:{slot}" for slot in range(settings.WINDOW_SLOTS)]


# The one slot of a preset window or lens a page asks for before the worker has warmed it (a new day's, or
# a cache that lost it): never one of the visitors' slots, so their windows cannot keep it from a reader.
RESERVED_SLOT: Final = f"{SCOPED_LOCK_KEY}:reserved"


def _claim_window(key: str, requester: str, slots: list[str] | None = None) -> list[str] | None:
    """The keys that let this request compute window `key`: the window's own (the same window asked twice at once
    is computed once), the requester's (one window at a time per client), and one of `slots` (by default the
    WINDOW_SLOTS shared ones, so no client can hold them all; none for the worker's warming). None when any is
    held; _CacheUnreachable without the cache."""
    own = [f"{SCOPED_LOCK_KEY}:window:{key}"] + ([f"{SCOPED_LOCK_KEY}:client:{requester}"] if requester else [])
    held = _claim(own)
    if held is None:
        return None
    pool = on_demand_slots() if slots is None else slots
    if not pool:
        return held
    for slot in pool:
        taken = _claim([slot])
        if taken:
            return held + taken
    for taken_key in held:
        soft_cache.delete(taken_key)
    return None


def reserved_scopes(document: Mapping[str, Any], *, today: date) -> list[tuple[date | None, date | None, str | None]]:
    """The windows the worker warms for each snapshot, which no visitor's window competes with: the preset day
    windows of every harness, and the all-time lens of each harness the snapshot shows."""
    scopes: list[tuple[date | None, date | None, str | None]]
    scopes = [(*preset_window(days, today=today), None) for days in PRESET_DAYS]
    return scopes + [(None, None, harness) for harness in published_harnesses(document)]


def from_snapshot(document: Mapping[str, Any], snapshot_id: int) -> bool:
    """Whether a window's document was computed for this snapshot (not an earlier one's, shown meanwhile)."""
    return str(document["meta"].get("snapshot")) == str(snapshot_id)


def _latest_key(since: date | None, until: date | None, harness: str | None) -> str:
    """Where the newest computed copy of a reserved window is named: by its preset (days or harness), not its
    dates, so a new day's window can show the day before's while it is warmed."""
    days = (until - since).days + 1 if since is not None and until is not None else 0
    return f"scoped:latest:{f'harness={harness}' if harness else f'days={days}'}"


def _earlier_document(key: str, since: date | None, until: date | None, harness: str | None) -> PoolDocument | None:
    """The newest other computed copy of reserved window `key` (an earlier snapshot's or day's), while `key` is
    being warmed."""
    latest = soft_cache.get(_latest_key(since, until, harness))
    if not isinstance(latest, tuple) or len(latest) != 3 or latest[2] == key:
        return None
    document: PoolDocument | None = soft_cache.get(latest[2])
    return document


def _keep_as_latest(key: str, snapshot_id: int, since: date | None, until: date | None, harness: str | None) -> None:
    """Name `key` the newest copy of its reserved window, unless a newer snapshot's or day's already is."""
    latest = soft_cache.get(_latest_key(since, until, harness))
    order = (snapshot_id, str(until))
    if isinstance(latest, tuple) and len(latest) == 3 and tuple(latest[:2]) > order:
        return
    soft_cache.set(_latest_key(since, until, harness), (*order, key), SCOPED_CACHE_SECONDS)


def scoped_document(
    *,
    since: dt.date | None,
    until: dt.date | None,
    snapshot: Snapshot | Published | None = None,
    requester: str = "",
    harness: str | None = None,
) -> PoolDocument | None:
    """Rankings for a window (days; one `harness`'s cycles when given), computed on demand and cached per snapshot.

    `snapshot`: the newest unless given (a page passes the one it holds). None when nothing has been
    published yet (or only a snapshot of an older document version). The all-time window of every harness is
    the snapshot itself; a harness the snapshot does not show raises UnknownHarness (a WindowError) before
    anything is counted. A reserved window (reserved_scopes: the worker warms them) not warmed yet is the
    previous snapshot's or day's while there is one (from_snapshot tells), else computed in RESERVED_SLOT,
    uncounted.
    Any other window not yet computed takes one of WINDOW_SLOTS and, once it has one, costs its `requester`
    (a keyed digest of the client's address) one of its WINDOW_RATE_PER_ADDRESS: raises WindowBusy when no
    slot is free, this window is computing, or this requester already computes another, which costs nothing;
    WindowLimited past the rate. A window during whose computing a retraction committed is neither cached
    nor shown (WindowBusy): asked again, it is computed without them.
    """
    snapshot = snapshot or newest_snapshot()
    if snapshot is None or read_document(snapshot.document) is None:
        return None
    if harness is not None:
        check_harness(snapshot.document, harness)
    if since is None and until is None and harness is None:
        return snapshot.document if isinstance(snapshot, Published) else snapshot_document(snapshot)
    key = scope_key(snapshot.id, since, until, harness)
    document: PoolDocument | None = soft_cache.get(key)
    if document is not None:
        return document
    if (since, until, harness) in reserved_scopes(snapshot.document, today=timezone.now().date()):
        earlier = _earlier_document(key, since, until, harness)
        if earlier is not None:
            return earlier
        return _computed(key, snapshot, since, until, harness, requester="", slots=[RESERVED_SLOT])
    return _computed(key, snapshot, since, until, harness, requester=requester, slots=None)


def _computed(
    key: str,
    snapshot: Snapshot | Published,
    since: dt.date | None,
    until: dt.date | None,
    harness: str | None,
    *,
    requester: str,
    slots: list[str] | None,
) -> PoolDocument:
    """Window `key` computed once its keys are held (_claim_window), counted against `requester`'s rate only
    then: a visitor told to come back because the slots were busy has started nothing."""
    try:
        claimed = _claim_window(key, requester, slots)
        if claimed is None:
            raise WindowBusy
    except _CacheUnreachable:
        # The cache is unreachable: one window at a time in this process instead.
        claimed = None
        if not process_lock(WINDOW_LOCK).acquire(blocking=False):
            raise WindowBusy from None
    try:
        if requester:
            # Pages stay up without Redis: then this process counts the rate itself.
            admitted, wait = admit(
                "window", requester, settings.WINDOW_RATE_PER_ADDRESS, counted_here_without_redis=True
            )
            if not admitted:
                raise WindowLimited(wait)
        return _score_window(key, snapshot, since, until, harness)
    finally:
        if claimed is None:
            process_lock(WINDOW_LOCK).release()
        else:
            for held in claimed:
                soft_cache.delete(held)


def pool_cells(**scope: Any) -> "Cells":
    """leaderboard.cells.pool_cells, imported where a window is read: a web process that only serves pages never
    loads the engine (nor pandas and scipy with it)."""
    from leaderboard.cells import pool_cells as read

    return read(**scope)


def score_cells(cells: "Cells", config: "ScoringConfig", **scope: Any) -> "ScoredPool":
    """scoring.cells.score_cells, imported where a window is scored (as pool_cells)."""
    from scoring.cells import score_cells as score

    return score(cells, config, **scope)


def _score_window(
    key: str, snapshot: Snapshot | Published, since: dt.date | None, until: dt.date | None, harness: str | None
) -> PoolDocument:
    config = scoring_config()
    generated = iso_z(snapshot.created_at)
    # Read before the cells: they hold nobody whose retraction came up to it (ingest.selectors).
    seen = retractions_seen()
    # A lens is compared on its own resamples (compare takes ?harness=), with every axis's too.
    cells = pool_cells(since=since, until=until, decisions=snapshot.name_decisions, harness=harness)
    scored = score_cells(cells, config, since=since, until=until, generated=generated, keep_axes=harness is not None)
    document = scored.document
    meta = document["meta"].copy()
    meta["snapshot"] = str(snapshot.id)
    meta["demo"] = snapshot.is_demo
    meta["harness"] = harness
    meta[HARNESSES_KEY] = published_harnesses(snapshot.document)
    document["meta"] = meta
    samples = {**scored.samples, AXIS_SAMPLES_KEY: scored.axis_samples}
    if retracted_after(seen):
        raise WindowBusy  # what was scored holds someone retracted since: neither cached nor shown
    # The samples first: whoever finds the document may ask for them (compare).
    soft_cache.set(f"{key}:samples", samples, SCOPED_CACHE_SECONDS)
    soft_cache.set(key, document, SCOPED_CACHE_SECONDS)
    if (since, until, harness) in reserved_scopes(snapshot.document, today=timezone.now().date()):
        _keep_as_latest(key, snapshot.id, since, until, harness)
    return document


def warm_windows(*, snapshot_id: int) -> None:
    """Compute a new snapshot's reserved windows (reserved_scopes) before visitors ask for them, outside the
    visitors' slots. Only for the newest snapshot: of a burst of publishes, the last one's warming does the
    work, and a warming overtaken by a newer snapshot stops at its next window."""
    snapshot = newest_snapshot()
    if snapshot is None or snapshot.id != snapshot_id or read_document(snapshot.document) is None:
        return  # a newer snapshot has its own warming queued
    for since, until, harness in reserved_scopes(snapshot.document, today=timezone.now().date()):
        if newest_snapshot_id() != snapshot_id:
            log.info("warming: snapshot %s was overtaken; the newer one's warming goes on", snapshot_id)
            return
        key = scope_key(snapshot.id, since, until, harness)
        if soft_cache.get(key) is not None:
            continue
        try:
            _computed(key, snapshot, since, until, harness, requester="", slots=[])
        except WindowBusy:
            log.info("warming: a page is computing %s to %s (%s) already", since, until, harness)


def warm_newest() -> None:
    """Warm the newest snapshot's reserved windows as of today (each one already warmed is one cache read)."""
    newest = newest_snapshot_id()
    if newest is not None:
        warm_windows(snapshot_id=newest)
