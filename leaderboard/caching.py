"""How pages are kept: per snapshot, in the shared cache and in each process, with ETags and 304s.

A page's cache key names the newest snapshot and the cache generation, which every publish bumps
(snapshot_published, run on the publishing transaction's commit): a new snapshot shows at once in
the publishing process and within SERVING_LOCAL_SECONDS in any other. Only answers of 200 are kept.
An unreachable cache reads as a miss (soft_cache): pages are then built from PostgreSQL and kept in
this process only.
"""

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags, quote_etag

from leaderboard import soft_cache
from leaderboard.http import NotFound, not_found_page
from leaderboard.models import Snapshot
from leaderboard.selectors import newest_snapshot_id, snapshot_document

# Pages cache under this generation; bumping it after each publish retires every old entry.
GENERATION_KEY: Final = "leaderboard:generation"
PAGE_SECONDS: Final = 24 * 3600
# Browsers and proxies may reuse a page this long, then revalidate it with its ETag.
CACHE_MAX_AGE: Final = 60
# Which snapshot the current cache generation serves. Short-lived, so a publish that never
# bumps the generation (an admin shell) still shows within a minute.
SERVING_KEY: Final = "leaderboard:serving"
SERVING_SECONDS: Final = 60
# How long a process trusts its last look at the generation before asking the cache again.
SERVING_LOCAL_SECONDS: Final = 1.0
# Pages this process has served, by cache key: a hit costs no trip to the shared cache.
LOCAL_PAGES: Final = 256


# ---------------------------------------------------------------- generations


def bump_generation(key: str = GENERATION_KEY) -> None:
    """Retire every page cached under the generation at `key` (the leaderboard's by default; the lab has its own)."""
    # Unreachable cache: nothing to retire, and pages are read from the database.
    try:
        soft_cache.incr(key)
    except ValueError:
        soft_cache.set(key, time.time_ns(), None)


def cache_generation(key: str = GENERATION_KEY) -> int:
    """The current generation at `key`; 0 while the cache is unreachable (a key no entry was stored under).

    A missing generation (a flushed cache) starts from the clock, never from a number a page
    this process still holds was kept under before the flush.
    """
    generation = soft_cache.get(key)
    if generation is None:
        if soft_cache.add(key, time.time_ns(), None) is None:
            return 0
        generation = soft_cache.get(key)
    return int(generation or 0)


_serving: tuple[float, int, int] | None = None  # (trusted until, generation, snapshot id)


def serving_snapshot() -> tuple[int, int]:
    """(cache generation, newest snapshot id or 0): usually from this process's last look,
    else one cache round trip, plus one query only when the generation has moved."""
    global _serving
    now = time.monotonic()
    local = _serving
    if local is not None and local[0] > now:
        return local[1], local[2]
    held = soft_cache.get_many([GENERATION_KEY, SERVING_KEY])
    if held is None:
        # The cache is unreachable: the newest snapshot from the database, and generation 0,
        # which names no shared cache entry (pages are then kept in this process only).
        snapshot_id = newest_snapshot_id() or 0
        _serving = (now + SERVING_LOCAL_SECONDS, 0, snapshot_id)
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
    _serving = (now + SERVING_LOCAL_SECONDS, int(generation), snapshot_id)
    return int(generation), snapshot_id


def snapshot_published() -> None:
    """After a publish commits: retire every cached page, and show the new snapshot here at once."""
    bump_generation()
    forget_local_pages()


# ---------------------------------------------------------------- the snapshot a process holds


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
    document: dict[str, Any]
    # The operator's decisions on names it was made with: its windows fold the same names.
    name_decisions: dict[str, bool] = field(default_factory=dict)


_newest: Published | None = None


def published_snapshot(snapshot_id: int) -> Published | None:
    """The snapshot of this id: one query the first time a process sees it."""
    global _newest
    if snapshot_id == 0:
        return None
    held = _newest
    if held is not None and held.id == snapshot_id:
        return held
    snapshot = Snapshot.objects.filter(id=snapshot_id).defer("samples").first()
    if snapshot is None:
        return None
    held = Published(
        id=snapshot.id,
        created_at=snapshot.created_at,
        is_demo=snapshot.is_demo,
        cycles=snapshot.cycles,
        judged=snapshot.judged,
        contributors=snapshot.contributors,
        document=snapshot_document(snapshot),
        name_decisions=snapshot.name_decisions,
    )
    _newest = held
    return held


class Lazy:
    """The page's snapshot, fetched only if the page needs it (a window page does not)."""

    def __init__(self, snapshot_id: int) -> None:
        self.snapshot_id = snapshot_id

    def __call__(self) -> Published | None:
        return published_snapshot(self.snapshot_id)


# ---------------------------------------------------------------- pages


_local_pages: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
_local_lock = threading.Lock()


def forget_local_pages() -> None:
    """Drop this process's page copies, held snapshot and look at the generation."""
    global _newest, _serving
    with _local_lock:
        _local_pages.clear()
    _newest = None
    _serving = None


def _remember(key: str, held: tuple[int, bytes]) -> None:
    with _local_lock:
        _local_pages[key] = held
        _local_pages.move_to_end(key)
        while len(_local_pages) > LOCAL_PAGES:
            _local_pages.popitem(last=False)


def page_cache_key(snapshot_id: int, generation: int, page: str, *parts: object) -> str:
    # Parts are validated values or capped parameters, hashed so any label makes a safe key.
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
    return f"page:{snapshot_id}:{generation}:{page}:{digest}"


def etag_of(*parts: object) -> str:
    """A strong ETag of what one snapshot shows at one address (the parts say which)."""
    return quote_etag(hashlib.sha256(repr(parts).encode()).hexdigest()[:32])


def page_etag(request: HttpRequest, snapshot_id: int, *parts: object) -> str:
    """The ETag of a URL in one snapshot; parts add what the URL alone does not fix (today's window)."""
    return etag_of(snapshot_id, request.get_full_path(), parts)


def not_modified(request: HttpRequest, etag: str) -> HttpResponseNotModified | None:
    """304 when If-None-Match names this ETag (weak comparison, as RFC 9110 asks for GET), else None.

    "*" is not honoured: whether the URL has a representation at all is only known once the page is built.
    """
    offered = parse_etags(request.headers.get("If-None-Match", ""))
    if etag.removeprefix("W/") not in {tag.removeprefix("W/") for tag in offered}:
        return None
    response = HttpResponseNotModified()
    mark_cacheable(response, etag)
    return response


def mark_cacheable(response: HttpResponseBase, etag: str) -> None:
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=CACHE_MAX_AGE)


def kept(response: HttpResponse) -> bool:
    """Whether a built page is kept for the snapshot: a 200 that did not say it will change (no-cache)."""
    return response.status_code == 200 and "no-cache" not in response.get("Cache-Control", "")


def cached_page(
    request: HttpRequest, page: str, parts: tuple[object, ...], build: Callable[[Lazy], HttpResponse]
) -> HttpResponse:
    """Serve a page from the cache of the newest snapshot, building it once per snapshot (or the 404 page
    with the message of the NotFound the build raised).

    ETags are only ever sent with a 200, so a client holding one asks about a URL that answered 200 in this
    snapshot: the 304 can be given before building (or finding) the page.
    """
    generation, snapshot_id = serving_snapshot()
    etag = page_etag(request, snapshot_id, page, *parts)
    unchanged = not_modified(request, etag)
    if unchanged is not None:
        unchanged["X-Snapshot"] = str(snapshot_id)
        return unchanged
    key = page_cache_key(snapshot_id, generation, page, *parts)
    held = _local_pages.get(key)
    if held is None:
        held = soft_cache.get(key)
        if held is not None:
            _remember(key, held)
    if held is not None:
        status, body = held
        response = HttpResponse(body, status=status)
    else:
        try:
            response = build(Lazy(snapshot_id))
        except NotFound as missing:
            response = not_found_page(str(missing))
        if kept(response):
            held = (response.status_code, response.content)
            soft_cache.set(key, held, PAGE_SECONDS)
            _remember(key, held)
    if kept(response):
        mark_cacheable(response, etag)
    response["X-Snapshot"] = str(snapshot_id)
    return response
