"""The public pages, server-rendered from the newest snapshot and cached per snapshot.

Every page costs at most three queries on a cache miss (the generation, the snapshot,
and one of: score history, cycles for a window, the two groups' stored bootstrap samples)
and none on a hit. Pages that answer 200 carry Cache-Control and an ETag naming the snapshot
and the URL; a matching If-None-Match gets 304 without building anything.
"""

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from urllib.parse import urlencode

from django.conf import settings
from django.db.models.fields.json import KeyTransform
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags, quote_etag
from django.views.decorators.http import require_POST, require_safe

from ingest.contract import parse_install
from ingest.services import retract
from ingest.throttles import AddressRateThrottle, ThrottleUnavailableError
from leaderboard import charts, pages, soft_cache
from leaderboard.models import GroupScore, Snapshot
from leaderboard.selectors import WindowBusy, cycles_frame, scoped_document, scoring_config, snapshot_document
from scoring import Comparison, GroupNotRanked, compare_from_samples, compare_groups
from scoring.compare_rates import RateTest, ship_rate_test
from scoring.shapes import ViewName

logger = logging.getLogger(__name__)

# Query values are capped before use: a label is at most 300 characters (GroupScore.label).
MAX_PARAM_LENGTH = 300
HISTORY_POINTS = 60
# Browsers and proxies may reuse a page this long, then revalidate it with its ETag.
CACHE_MAX_AGE = 60


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
    )
    _newest = held
    return held


def param(request: HttpRequest, name: str, default: str = "") -> str:
    value = request.GET.get(name, default)
    return value[:MAX_PARAM_LENGTH] if isinstance(value, str) else default


def base_context(snapshot: Published | None, document: dict[str, Any] | None = None) -> dict[str, Any]:
    if document is None:
        document = snapshot.document if snapshot else {}
    meta = document.get("meta", {})
    return {
        "snapshot": snapshot,
        "meta": meta,
        "is_demo": bool(meta.get("demo") or (snapshot and snapshot.is_demo)),
        "views": pages.VIEWS,
    }


class Lazy:
    """The page's snapshot, fetched only if the page needs it (a window page does not)."""

    def __init__(self, snapshot_id: int) -> None:
        self.snapshot_id = snapshot_id

    def __call__(self) -> Published | None:
        return published_snapshot(self.snapshot_id)


# Pages this process has served, by cache key: a hit costs no trip to the shared cache
# for the body. Keys name the snapshot and generation, so an entry is never stale.
LOCAL_PAGES = 256
_local_pages: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
_local_lock = threading.Lock()


def forget_local_pages() -> None:
    """Drop this process's page copies and held snapshot (tests; after flushing the cache)."""
    global _newest
    with _local_lock:
        _local_pages.clear()
    _newest = None
    pages.forget_serving()


def _remember(key: str, held: tuple[int, bytes]) -> None:
    with _local_lock:
        _local_pages[key] = held
        _local_pages.move_to_end(key)
        while len(_local_pages) > LOCAL_PAGES:
            _local_pages.popitem(last=False)


def page_etag(request: HttpRequest, snapshot_id: int, *parts: object) -> str:
    """A strong ETag of what a URL shows in one snapshot; parts add what the URL alone does not fix (today's window)."""
    named = repr((snapshot_id, request.get_full_path(), parts)).encode()
    return quote_etag(hashlib.sha256(named).hexdigest()[:32])


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


def cached_page(
    request: HttpRequest, page: str, parts: tuple[object, ...], build: Callable[[Lazy], HttpResponse]
) -> HttpResponse:
    """Serve a page from the cache of the newest snapshot, building it once per snapshot.

    ETags are only ever sent with a 200, so a client holding one asks about a URL that answered 200 in this
    snapshot: the 304 can be given before building (or finding) the page.
    """
    generation, snapshot_id = pages.serving_snapshot()
    etag = page_etag(request, snapshot_id, page, *parts)
    unchanged = not_modified(request, etag)
    if unchanged is not None:
        unchanged["X-Snapshot"] = str(snapshot_id)
        return unchanged
    key = pages.page_cache_key(snapshot_id, generation, page, *parts)
    held = _local_pages.get(key)
    if held is None:
        held = soft_cache.get(key)
        if held is not None:
            _remember(key, held)
    if held is not None:
        status, body = held
        response = HttpResponse(body, status=status)
    else:
        response = build(Lazy(snapshot_id))
        if response.status_code == 200:
            held = (response.status_code, response.content)
            soft_cache.set(key, held, pages.PAGE_SECONDS)
            _remember(key, held)
    if response.status_code == 200:
        mark_cacheable(response, etag)
    response["X-Snapshot"] = str(snapshot_id)
    return response


def render_page(template: str, context: dict[str, Any], *, status: int = 200) -> HttpResponse:
    return HttpResponse(render_to_string(template, context), status=status)


def not_found_page(message: str) -> HttpResponse:
    return render_page("404.html", {"message": message}, status=404)


# ---------------------------------------------------------------- the leaderboard


def window_query(window: pages.Window) -> str:
    """The window's part of a tab link, so switching views keeps the window."""
    if window.is_all_time or window.error:
        return ""
    query = {"window": window.name}
    if window.name == "custom":
        query.update({k: str(v) for k, v in (("since", window.since), ("until", window.until)) if v})
    return "&" + urlencode(query)


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    view = param(request, "view", pages.DEFAULT_VIEW)
    if view not in pages.VIEWS:
        return not_found_page("There is no such view.")
    params = {name: param(request, name) for name in ("window", "since", "until")}
    window = pages.read_window(params, today=timezone.now().date())

    def build(load: Lazy) -> HttpResponse:
        nonlocal window
        document: dict[str, Any] | None
        status = 400 if window.error else 200
        if window.is_all_time or window.error:
            snapshot = load()
            document = snapshot.document if snapshot else None
        else:
            snapshot = None
            try:
                document = scoped_document(since=window.since, until=window.until)
            except WindowBusy:
                # Not cached (only 200s are): the next visit finds the window computed.
                window = pages.Window(window.name, error="Another window is being computed; reload in a few seconds.")
                snapshot, status = load(), 503
                document = snapshot.document if snapshot else None
        context = base_context(snapshot, document)
        context.update(
            {
                "view": view,
                "view_title": pages.VIEWS[view],
                "window": window,
                "windows": pages.WINDOWS,
                "tab_suffix": window_query(window),
            }
        )
        if document is None:
            return render_page("leaderboard/leaderboard.html", context)
        view_doc = (document.get("views") or {}).get(view) or {}
        rows = pages.leaderboard_rows(view_doc)
        domain = charts.score_domain(rows)
        for row in rows:
            row["bar"] = charts.interval_bar(
                score=row["score_adj"],
                lo=row["lo"],
                hi=row["hi"],
                hue=row["group"].get("hue"),
                label=row["label"],
                domain=domain,
            )
        view_meta = view_doc.get("meta") or {}
        context.update(
            {
                "rows": rows,
                "provisional": pages.provisional_rows(view_doc),
                "rank_range_words": pages.RANK_RANGE_WORDS,
                "scope_meta": document.get("meta", {}),
                "view_meta": view_meta,
                "variance_words": pages.variance_share_words(view_meta),
                "is_pairing_view": view in pages.PAIRING_VIEWS,
                "has_other": pages.has_other(view_doc),
                "other_words": pages.other_words(settings.PUBLIC_LABEL_MIN_CONTRIBUTORS),
            }
        )
        response = render_page("leaderboard/leaderboard.html", context, status=status)
        if status == 503:
            response["Retry-After"] = "5"
        return response

    parts = (view, window.name, window.since, window.until, bool(window.error))
    return cached_page(request, "leaderboard", parts, build)


# ---------------------------------------------------------------- one group


def score_history(view: str, label: str) -> list[charts.HistoryPoint]:
    rows = (
        GroupScore.objects.filter(view=view, label=label)
        .order_by("-snapshot_id")
        .values_list("snapshot_id", "snapshot__created_at", "score_adj", "ci_lo", "ci_hi")[:HISTORY_POINTS]
    )
    return [charts.HistoryPoint(*row) for row in reversed(rows)]


def published_view(snapshot: Published, view: str) -> dict[str, Any] | HttpResponse:
    """One view of the published snapshot, or the 404 page when there is no such view."""
    try:
        return pages.view_document(snapshot.document, view)
    except pages.UnknownGroup:
        return not_found_page("There is no such view.")


@require_safe
def pairing(request: HttpRequest) -> HttpResponse:
    view = param(request, "view", pages.DEFAULT_VIEW)
    label = param(request, "label")
    if view not in pages.VIEWS:
        return not_found_page("There is no such view.")

    def build(load: Lazy) -> HttpResponse:
        snapshot = load()
        if snapshot is None:
            return not_found_page("Nothing is ranked yet.")
        found = published_view(snapshot, view)
        if isinstance(found, HttpResponse):
            return found
        view_doc = found
        context = base_context(snapshot)
        context.update({"view": view, "view_title": pages.VIEWS[view], "label": label})
        try:
            group = pages.find_group(view_doc, label)
        except pages.UnknownGroup:
            provisional = [row for row in pages.provisional_rows(view_doc) if row["label"] == label]
            if not provisional:
                return not_found_page(f"No group of that name in the view {pages.VIEWS[view]}.")
            context.update({"provisional": provisional[0], "axes": pages.AXES})
            return render_page("leaderboard/provisional.html", context)
        rows = pages.axis_rows(group, view_doc)
        lo, hi = pages.interval(group)
        context.update(
            {
                "group": group,
                "row": pages.row_for(view_doc, label),
                "ranked_count": len(view_doc.get("groups", [])),
                "rank_range_words": pages.RANK_RANGE_WORDS,
                "axis_rows": rows,
                "tiers": [
                    (name, weight, (group.get("tiers") or {}).get(name), (group.get("tiersAdj") or {}).get(name))
                    for name, weight in pages.TIERS.items()
                ],
                "strip": charts.axis_strip(rows=rows, hue=group.get("hue"), label=label, span=pages.span_of(view_doc)),
                "sparkline": charts.sparkline(points=score_history(view, label), hue=group.get("hue"), label=label),
                "lo": lo,
                "hi": hi,
                "sides": pages.planner_and_builder(group),
                "pool": view_doc.get("pool") or {},
                "variance_words": pages.variance_share_words(view_doc.get("meta") or {}),
            }
        )
        return render_page("leaderboard/pairing.html", context)

    return cached_page(request, "pairing", (view, label), build)


# ---------------------------------------------------------------- two groups


def stored_samples(snapshot_id: int, view: str, label_a: str, label_b: str) -> tuple[object, object]:
    """The two groups' stored bootstrap samples: one query that reads only those two lists of the snapshot."""
    in_view = KeyTransform(view, "samples")
    found = (
        Snapshot.objects.filter(id=snapshot_id)
        .annotate(samples_a=KeyTransform(label_a, in_view), samples_b=KeyTransform(label_b, in_view))
        .values_list("samples_a", "samples_b")
        .first()
    )
    return found if found is not None else (None, None)


def score_difference(
    snapshot_id: int, view: str, group_a: dict[str, Any], group_b: dict[str, Any]
) -> Comparison | None:
    """scoreAdj(A) - scoreAdj(B) with its cluster bootstrap-t interval, from the samples the recompute stored.

    Every group of a view is scored on the same resamples, so these are compare_groups' own numbers. A snapshot
    published before samples were kept (or whose samples a newer one has retired) falls back to the engine.
    """
    samples_a, samples_b = stored_samples(snapshot_id, view, str(group_a["label"]), str(group_b["label"]))
    score_a, score_b = pages.number(group_a.get("scoreAdj")), pages.number(group_b.get("scoreAdj"))
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
    return engine_score_difference(view, str(group_a["label"]), str(group_b["label"]))


def engine_score_difference(view: str, label_a: str, label_b: str) -> Comparison | None:
    """The bootstrap comparison from the scoring engine, on the cycles of the newest pool."""
    try:
        return compare_groups(
            cycles_frame(),
            scoring_config(),
            view=cast(ViewName, view),  # checked against pages.VIEWS by the caller
            label_a=label_a,
            label_b=label_b,
        )
    except GroupNotRanked:
        # The stored cycles changed since the snapshot (a retraction): say so rather than fail.
        logger.info("compare: %s or %s is no longer ranked in %s", label_a, label_b, view)
        return None


def rate_test(group_a: dict[str, Any], group_b: dict[str, Any]) -> RateTest | None:
    """The two-proportion z-test of the raw ship rates (shipped of ship-judged cycles)."""
    counts = [group.get(key) for group in (group_a, group_b) for key in ("hshipped", "hshipJudged")]
    if not all(isinstance(count, int) and not isinstance(count, bool) for count in counts):
        return None
    shipped_a, judged_a, shipped_b, judged_b = (int(count or 0) for count in counts)
    try:
        return ship_rate_test(shipped_a=shipped_a, judged_a=judged_a, shipped_b=shipped_b, judged_b=judged_b)
    except ValueError:  # counts that contradict each other: say nothing rather than fail the page
        return None


@require_safe
def compare(request: HttpRequest) -> HttpResponse:
    view = param(request, "view", pages.DEFAULT_VIEW)
    label_a, label_b = param(request, "a"), param(request, "b")
    if view not in pages.VIEWS:
        return not_found_page("There is no such view.")

    def build(load: Lazy) -> HttpResponse:
        snapshot = load()
        if snapshot is None:
            return not_found_page("Nothing is ranked yet.")
        found = published_view(snapshot, view)
        if isinstance(found, HttpResponse):
            return found
        view_doc = found
        groups = view_doc.get("groups", [])
        context = base_context(snapshot)
        context.update(
            {
                "view": view,
                "view_title": pages.VIEWS[view],
                "choices": [g["label"] for g in groups],
                "is_pairing_view": view in pages.PAIRING_VIEWS,
            }
        )
        # Missing sides default to the best-ranked groups, never to the other side's group.
        chosen_a = label_a or next((g["label"] for g in groups if g["label"] != label_b), "")
        chosen_b = label_b or next((g["label"] for g in groups if g["label"] != chosen_a), "")
        if not chosen_a or not chosen_b:
            context.update({"a": None, "b": None})
            return render_page("leaderboard/compare.html", context)
        try:
            group_a, group_b = pages.find_group(view_doc, chosen_a), pages.find_group(view_doc, chosen_b)
        except pages.UnknownGroup:
            return not_found_page(f"No such group in the view {pages.VIEWS[view]}.")
        same = chosen_a == chosen_b
        context.update(
            {
                "a": group_a,
                "b": group_b,
                "same": same,
                "row_a": pages.row_for(view_doc, chosen_a),
                "row_b": pages.row_for(view_doc, chosen_b),
                "axes": pages.compare_axes(group_a, group_b),
                "tier_rows": pages.compare_tiers(group_a, group_b),
                "links": pages.quick_links(view_doc, group_a),
                "difference": None if same else score_difference(snapshot.id, view, group_a, group_b),
                "rates": None if same else rate_test(group_a, group_b),
                "side_rows": [("A", pages.row_for(view_doc, chosen_a)), ("B", pages.row_for(view_doc, chosen_b))],
                "rank_range_words": pages.RANK_RANGE_WORDS,
            }
        )
        return render_page("leaderboard/compare.html", context)

    return cached_page(request, "compare", (view, label_a, label_b), build)


# ---------------------------------------------------------------- words and downloads


def static_page(template: str, page: str) -> Callable[[HttpRequest], HttpResponse]:
    @require_safe
    def view(request: HttpRequest) -> HttpResponse:
        # The contribute page names this service's own address; hosts are bounded by ALLOWED_HOSTS.
        contribution_url = request.build_absolute_uri(reverse("contributions"))

        def build(load: Lazy) -> HttpResponse:
            snapshot = load()
            context = base_context(snapshot)
            context.update(
                {
                    "axes": pages.AXES,
                    "tiers": pages.TIERS,
                    "flags": pages.FLAG_WORDS,
                    "interval": pages.interval_constants(),
                    "coverage": pages.coverage_figures(),
                    "rank_range_words": pages.RANK_RANGE_WORDS,
                    "adjusted_odds_words": pages.ADJUSTED_ODDS_WORDS,
                    "columns": pages.CONTRIBUTED_COLUMNS,
                    "views_explained": [(pages.VIEWS[key], text) for key, text in pages.VIEW_EXPLANATIONS.items()],
                    "min_contributors": settings.PUBLIC_LABEL_MIN_CONTRIBUTORS,
                    "contribution_url": contribution_url,
                }
            )
            return render_page(template, context)

        return cached_page(request, page, (contribution_url,), build)

    view.__name__ = page
    return view


methodology = static_page("leaderboard/methodology.html", "methodology")
data = static_page("leaderboard/data.html", "data")


# ---------------------------------------------------------------- contributing and retracting


def contribute_context(request: HttpRequest, snapshot_id: int) -> dict[str, Any]:
    """The contribute page's words and addresses; the host is bounded by ALLOWED_HOSTS."""
    site = request.build_absolute_uri("/").rstrip("/")
    context = base_context(published_snapshot(snapshot_id))
    context.update(
        {
            "columns": pages.CONTRIBUTED_COLUMNS,
            "contribution_url": request.build_absolute_uri(reverse("contributions")),
            # The plugin posts to /v1/contribute on the host its setting names.
            "plugin_setting": pages.PLUGIN_URL_SETTING,
            "plugin_host": site,
            "plugin_url": request.build_absolute_uri(reverse("plugin-contribute")),
            "plugin_install_file": pages.PLUGIN_INSTALL_FILE,
        }
    )
    return context


def render_contribute(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    # Built per request, never from the page cache: the retraction form carries this visitor's CSRF token.
    _, snapshot_id = pages.serving_snapshot()
    context = {**contribute_context(request, snapshot_id), **extra}
    response = render(request, "leaderboard/contribute.html", context, status=status)
    patch_cache_control(response, private=True, no_cache=True)
    response["X-Snapshot"] = str(snapshot_id)
    return response


@require_safe
def contribute(request: HttpRequest) -> HttpResponse:
    return render_contribute(request)


@require_POST
def retract_form(request: HttpRequest) -> HttpResponse:
    """The retraction a plugin user can do: paste the install id, every cycle of it is deleted.

    The id is never shown back, logged or stored; only its keyed hash is remembered (ingest.services.retract).
    """
    throttle = AddressRateThrottle()
    try:
        allowed = throttle.allow_request(request, None)  # type: ignore[arg-type]  # reads only request.META
    except ThrottleUnavailableError:
        allowed = None
    if not allowed:
        message = (
            "Too many requests from your address; try again later."
            if allowed is False
            else "Retraction is unavailable for a minute; try again shortly."
        )
        return render_contribute(request, status=429 if allowed is False else 503, retract_error=message)
    install = parse_install(request.POST.get("install", "").strip())
    if install is None:
        return render_contribute(
            request,
            status=400,
            retract_error='That is not an install id: paste the value of "install" from the file named below.',
        )
    deleted = retract(install=install, now=timezone.now())
    return render_contribute(request, retracted=deleted)


# ---------------------------------------------------------------- errors


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without this visitor's token (an old tab, blocked cookies): say what to do, in the site's page."""
    message = "The form had expired. Reload the page and send it again (the page needs cookies for this form)."
    return render(request, "404.html", {"message": message, "title": "Form expired"}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "500.html", status=500)
