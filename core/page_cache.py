"""How pages are kept: per snapshot, in the shared cache and in each process, with ETags and 304s.

A page's cache key names the snapshot it shows and the cache generation, which every publish bumps
(leaderboard.published.serve_new_snapshot, run on the publishing transaction's commit). Only answers of 200 are kept.
An unreachable cache reads as a miss (soft_cache): pages are then built from PostgreSQL and kept in
this process only.
"""

import hashlib
import time
from collections.abc import Callable
from typing import Final

from django.core.cache import BaseCache, caches
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags, quote_etag

from core import soft_cache
from core.http import NotFound, not_found_page

# Pages cache under this generation; bumping it after each publish retires every old entry.
GENERATION_KEY: Final = "leaderboard:generation"
PAGE_SECONDS: Final = 24 * 3600
# Browsers and proxies may reuse a page this long, then revalidate it with its ETag.
CACHE_MAX_AGE: Final = 60


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


# ---------------------------------------------------------------- pages


def process_cache() -> BaseCache:
    """This process's own cache (settings.PROCESS_CACHE): pages it served, kept without a trip to the shared one."""
    return caches["process"]


def forget_process_copies() -> None:
    """Drop what this process keeps of its own: page copies, the snapshot it serves, its look at the generation."""
    process_cache().clear()


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


def cached_response(
    request: HttpRequest,
    page: str,
    parts: tuple[object, ...],
    build: Callable[[], HttpResponse],
    *,
    generation: int,
    snapshot_id: int,
    content_type: str = "text/html; charset=utf-8",
) -> HttpResponse:
    """Serve a page from the cache of one snapshot and cache generation, building it once per snapshot (or the
    404 page with the message of the NotFound the build raised); a kept page is served as `content_type`.

    ETags are only ever sent with a 200, so a client holding one asks about a URL that answered 200 in this
    snapshot: the 304 can be given before building (or finding) the page.
    """
    etag = page_etag(request, snapshot_id, page, *parts)
    unchanged = not_modified(request, etag)
    if unchanged is not None:
        unchanged["X-Snapshot"] = str(snapshot_id)
        return unchanged
    key = page_cache_key(snapshot_id, generation, page, *parts)
    local = process_cache()
    held = local.get(key)
    if held is None:
        held = soft_cache.get(key)
        if held is not None:
            local.set(key, held, PAGE_SECONDS)
    if held is not None:
        status, body = held
        response = HttpResponse(body, status=status, content_type=content_type)
    else:
        try:
            response = build()
        except NotFound as missing:
            response = not_found_page(str(missing))
        if kept(response):
            held = (response.status_code, response.content)
            soft_cache.set(key, held, PAGE_SECONDS)
            local.set(key, held, PAGE_SECONDS)
    if kept(response):
        mark_cacheable(response, etag)
    response["X-Snapshot"] = str(snapshot_id)
    return response
