"""Day windows of a ranking: the pages' presets and custom days, and pool.json's since/until, read by one
parser of days and computed on demand, at most WINDOW_SLOTS at once (each client one at a time, the same
window once), and cached per snapshot. The contract accepts no cycle before its first day or after tomorrow,
so no window reaching outside those days could differ from one inside them.
"""

import datetime as dt
import logging
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final
from urllib.parse import urlencode

from django.conf import settings
from django.utils import timezone

from core import soft_cache
from core.backend import process_lock
from core.throttles import admit
from core.times import iso_z
from ingest.contract_rules import FIRST_DAY
from rankings.models import Snapshot
from rankings.selectors import cycles_frame, newest_snapshot, read_document, scoring_config, snapshot_document
from scoring import enrich_document, score_pool
from scoring.shapes import PoolDocument

log = logging.getLogger(__name__)

# The day windows the pages offer besides all time, and warm after each publish.
PRESET_DAYS: Final = (90, 30)
WINDOW_NAMES: Final = ("all", *(str(days) for days in PRESET_DAYS), "custom")


class WindowError(ValueError):
    """A day or window that cannot be read: the message names the parameter and says what it wants."""


def preset_window(days: int, *, today: date) -> tuple[date, date]:
    """The last `days` days up to today."""
    return today - timedelta(days=days - 1), today


def read_day(name: str, raw: str | None, *, today: date) -> date | None:
    """A day parameter (YYYY-MM-DD between the contract's first day and tomorrow), None when absent or empty."""
    if raw is None or raw == "":
        return None
    try:
        day = date.fromisoformat(raw) if len(raw) == 10 else None
    except ValueError:
        day = None
    if day is None:
        raise WindowError(f"{name} must be a date written YYYY-MM-DD, for example 2026-09-01.")
    if not FIRST_DAY <= day <= today + timedelta(days=1):
        raise WindowError(f"{name} must lie between {FIRST_DAY} and tomorrow.")
    return day


def read_days(since_raw: str | None, until_raw: str | None, *, today: date) -> tuple[date | None, date | None]:
    """since and until as days in order; WindowError names the one at fault."""
    since = read_day("since", since_raw, today=today)
    until = read_day("until", until_raw, today=today)
    if since is not None and until is not None and since > until:
        raise WindowError("since must not be after until.")
    return since, until


@dataclass(frozen=True)
class Window:
    """A window the pages show: its name (all, 90, 30, custom), its days, or why it cannot be shown."""

    name: str
    since: date | None = None
    until: date | None = None
    error: str = ""

    @property
    def is_all_time(self) -> bool:
        return self.since is None and self.until is None


def read_window(params: dict[str, str], *, today: date) -> Window:
    """The pages' window from ?window=all|90|30|custom (&since=&until= for custom); an unknown name is all time."""
    name = params.get("window", "all")
    if name in WINDOW_NAMES[1:-1]:
        first, last = preset_window(int(name), today=today)
        return Window(name, since=first, until=last)
    if name != "custom":
        return Window("all")
    try:
        since, until = read_days(params.get("since"), params.get("until"), today=today)
    except WindowError as error:
        return Window("custom", error=str(error))
    if since is None and until is None:
        return Window("custom", error="Give a start day, an end day or both.")
    return Window("custom", since=since, until=until)


def window_query(window: Window) -> str:
    """The window's part of a tab link, so switching views keeps the window."""
    if window.is_all_time or window.error:
        return ""
    query = {"window": window.name}
    if window.name == "custom":
        query.update({k: str(v) for k, v in (("since", window.since), ("until", window.until)) if v})
    return "&" + urlencode(query)


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
) -> PoolDocument | None:
    """Rankings for a day window, computed on demand and cached per snapshot.

    None when nothing has been published yet (or only a snapshot of an older document version). The all-time
    window is the snapshot itself. A window not
    yet computed costs its `requester` (a keyed digest of the client's address) one of its
    WINDOW_RATE_PER_ADDRESS and one of WINDOW_SLOTS; raises WindowLimited past the rate and WindowBusy when
    no slot is free, this window is computing, or this requester already computes another.
    """
    snapshot = snapshot or newest_snapshot()
    if snapshot is None or read_document(snapshot.document) is None:
        return None
    if since is None and until is None:
        return snapshot_document(snapshot)
    key = f"scoped:{snapshot.id}:{since}:{until}"
    document: PoolDocument | None = soft_cache.get(key)
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
        if not process_lock(WINDOW_LOCK).acquire(blocking=False):
            raise WindowBusy from None
    try:
        frame = cycles_frame(since=since, until=until, decisions=snapshot.name_decisions)
        config = scoring_config()
        document = score_pool(frame, config, since=since, until=until, generated=iso_z(snapshot.created_at)).document
        enrich_document(document, frame, config, since=since, until=until)
        meta = document["meta"].copy()
        meta["snapshot"] = str(snapshot.id)
        meta["demo"] = snapshot.is_demo
        document["meta"] = meta
        soft_cache.set(key, document, SCOPED_CACHE_SECONDS)
    finally:
        if claimed is None:
            process_lock(WINDOW_LOCK).release()
        else:
            for held in claimed:
                soft_cache.delete(held)
    return document


def warm_windows(*, snapshot_id: int) -> None:
    """Compute the 90- and 30-day windows of a new snapshot before visitors ask for them."""
    snapshot = newest_snapshot()
    if snapshot is None or snapshot.id != snapshot_id:
        return  # a newer snapshot has its own warming queued
    today = timezone.now().date()
    for days in PRESET_DAYS:
        since, until = preset_window(days, today=today)
        try:
            scoped_document(since=since, until=until, snapshot=snapshot)
        except WindowBusy:
            log.info("warming: a %d-day window waits for a visitor; another window is computing", days)
