"""The public pages: one view each, built from the newest snapshot and kept per snapshot (caching.py).

Every page costs at most three queries on a cache miss (the generation, the snapshot, and one of:
score history, cycles for a window, the two groups' stored bootstrap samples) and none on a hit.
"""

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_POST, require_safe

from ingest.contract import parse_install
from ingest.keys import keyed_digest
from ingest.services import retract
from ingest.throttles import AddressRateThrottle, ThrottleUnavailableError, client_address
from leaderboard import charts, presenters, selectors, services, words
from leaderboard.caching import Lazy, Published, cached_page, published_snapshot, serving_snapshot
from leaderboard.http import chosen_view, not_found_page, param, render_page
from leaderboard.windows import Window, read_window

HISTORY_POINTS = 60


def base_context(snapshot: Published | None, document: dict[str, Any] | None = None) -> dict[str, Any]:
    if document is None:
        document = snapshot.document if snapshot else {}
    meta = document.get("meta", {})
    return {
        "snapshot": snapshot,
        "meta": meta,
        "is_demo": bool(meta.get("demo") or (snapshot and snapshot.is_demo)),
        "views": words.VIEW_TITLES,
        "method": presenters.method_numbers(meta),
    }


def requester_digest(request: HttpRequest) -> str:
    """Who asks for a window not yet computed, as a keyed hash of the client's address (never the address)."""
    return keyed_digest("address", client_address(request))  # type: ignore[arg-type]  # reads only request.META


def published_view(snapshot: Published | None, view: str) -> tuple[Published, dict[str, Any]] | HttpResponse:
    """The published snapshot and one view of it, or the 404 page when there is none or no such view."""
    if snapshot is None:
        return not_found_page("Nothing is ranked yet.")
    try:
        return snapshot, presenters.view_document(snapshot.document, view)
    except presenters.UnknownGroup:
        return not_found_page("There is no such view.")


def window_query(window: Window) -> str:
    """The window's part of a tab link, so switching views keeps the window."""
    if window.is_all_time or window.error:
        return ""
    query = {"window": window.name}
    if window.name == "custom":
        query.update({k: str(v) for k, v in (("since", window.since), ("until", window.until)) if v})
    return "&" + urlencode(query)


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page("There is no such view.")
    params = {name: param(request, name) for name in ("window", "since", "until")}
    window = read_window(params, today=timezone.now().date())

    def build(load: Lazy) -> HttpResponse:
        nonlocal window
        document: dict[str, Any] | None
        status, retry_after = (400 if window.error else 200), 0
        if window.is_all_time or window.error:
            snapshot = load()
            document = snapshot.document if snapshot else None
        else:
            snapshot = None
            try:
                document = services.scoped_document(
                    since=window.since, until=window.until, requester=requester_digest(request)
                )
            except services.WindowLimited as limited:
                window = Window(
                    window.name,
                    error=f"Too many new windows from your address; try again in {limited.retry_after} seconds.",
                )
                snapshot, status, retry_after = load(), 429, limited.retry_after
                document = snapshot.document if snapshot else None
            except services.WindowBusy as busy:
                # Not cached (only 200s are): the next visit finds the window computed.
                window = Window(window.name, error="Another window is being computed; reload in a few seconds.")
                snapshot, status, retry_after = load(), 503, busy.retry_after
                document = snapshot.document if snapshot else None
        context = base_context(snapshot, document)
        context.update(
            {
                "view": view,
                "view_title": words.VIEW_TITLES[view],
                "window": window,
                "windows": words.WINDOW_TITLES,
                "tab_suffix": window_query(window),
                "tiers": words.TIERS,
            }
        )
        if document is None:
            return render_page("leaderboard/leaderboard.html", context)
        view_doc = (document.get("views") or {}).get(view) or {}
        rows = presenters.leaderboard_rows(view_doc)
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
                "provisional": presenters.provisional_rows(view_doc),
                "rank_range_words": words.RANK_RANGE_WORDS,
                "scope_meta": document.get("meta", {}),
                "view_meta": view_meta,
                "variance_words": presenters.variance_share_words(view_meta),
                "is_pairing_view": view in presenters.PAIRING_VIEWS,
                "has_other": presenters.has_other(view_doc),
                "other_words": words.other_words(settings.PUBLIC_LABEL_MIN_CONTRIBUTORS),
            }
        )
        response = render_page("leaderboard/leaderboard.html", context, status=status)
        if status in (429, 503):
            response["Retry-After"] = str(retry_after)
        return response

    parts = (view, window.name, window.since, window.until, bool(window.error))
    return cached_page(request, "leaderboard", parts, build)


@require_safe
def pairing(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page("There is no such view.")
    label = param(request, "label")

    def build(load: Lazy) -> HttpResponse:
        found = published_view(load(), view)
        if isinstance(found, HttpResponse):
            return found
        snapshot, view_doc = found
        context = base_context(snapshot)
        context.update({"view": view, "view_title": words.VIEW_TITLES[view], "label": label})
        context["method"] = presenters.method_numbers({**(view_doc.get("meta") or {}), "span": view_doc.get("span")})
        try:
            group = presenters.find_group(view_doc, label)
        except presenters.UnknownGroup:
            provisional = [row for row in presenters.provisional_rows(view_doc) if row["label"] == label]
            if not provisional:
                return not_found_page(f"No group of that name in the view {words.VIEW_TITLES[view]}.")
            context.update({"provisional": provisional[0], "axes": words.AXES})
            return render_page("leaderboard/provisional.html", context)
        rows = presenters.axis_rows(group, view_doc)
        lo, hi = presenters.interval(group)
        history = [charts.HistoryPoint(*point) for point in selectors.score_history(view, label, points=HISTORY_POINTS)]
        context.update(
            {
                "group": group,
                "row": presenters.row_for(view_doc, label),
                "ranked_count": len(view_doc.get("groups", [])),
                "rank_range_words": words.RANK_RANGE_WORDS,
                "axis_rows": rows,
                "tiers": [
                    (name, weight, (group.get("tiers") or {}).get(name), (group.get("tiersAdj") or {}).get(name))
                    for name, weight in words.TIERS.items()
                ],
                "strip": charts.axis_strip(
                    rows=rows, hue=group.get("hue"), label=label, span=presenters.span_of(view_doc)
                ),
                "sparkline": charts.sparkline(points=history, hue=group.get("hue"), label=label),
                "lo": lo,
                "hi": hi,
                "sides": presenters.planner_and_builder(group),
                "pool": view_doc.get("pool") or {},
                "variance_words": presenters.variance_share_words(view_doc.get("meta") or {}),
            }
        )
        return render_page("leaderboard/pairing.html", context)

    return cached_page(request, "pairing", (view, label), build)


@require_safe
def compare(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page("There is no such view.")
    label_a, label_b = param(request, "a"), param(request, "b")

    def build(load: Lazy) -> HttpResponse:
        found = published_view(load(), view)
        if isinstance(found, HttpResponse):
            return found
        snapshot, view_doc = found
        groups = view_doc.get("groups", [])
        context = base_context(snapshot)
        context.update(
            {
                "view": view,
                "view_title": words.VIEW_TITLES[view],
                "choices": [g["label"] for g in groups],
                "is_pairing_view": view in presenters.PAIRING_VIEWS,
            }
        )
        # Missing sides default to the best-ranked groups, never to the other side's group.
        chosen_a = label_a or next((g["label"] for g in groups if g["label"] != label_b), "")
        chosen_b = label_b or next((g["label"] for g in groups if g["label"] != chosen_a), "")
        if not chosen_a or not chosen_b:
            context.update({"a": None, "b": None})
            return render_page("leaderboard/compare.html", context)
        try:
            group_a, group_b = presenters.find_group(view_doc, chosen_a), presenters.find_group(view_doc, chosen_b)
        except presenters.UnknownGroup:
            return not_found_page(f"No such group in the view {words.VIEW_TITLES[view]}.")
        same = chosen_a == chosen_b
        row_a, row_b = presenters.row_for(view_doc, chosen_a), presenters.row_for(view_doc, chosen_b)
        context.update(
            {
                "a": group_a,
                "b": group_b,
                "same": same,
                "row_a": row_a,
                "row_b": row_b,
                "axes": presenters.compare_axes(group_a, group_b),
                "tier_rows": presenters.compare_tiers(group_a, group_b),
                "links": presenters.quick_links(view_doc, group_a),
                "difference": None if same else services.score_difference(snapshot.id, view, group_a, group_b),
                "rates": None if same else presenters.rate_test(group_a, group_b),
                "side_rows": [("A", row_a), ("B", row_b)],
                "rank_range_words": words.RANK_RANGE_WORDS,
            }
        )
        return render_page("leaderboard/compare.html", context)

    return cached_page(request, "compare", (view, label_a, label_b), build)


def words_page(template: str, page: str) -> Callable[[HttpRequest], HttpResponse]:
    """A page of words about the method or the data, with the newest snapshot's numbers in it."""

    @require_safe
    def view(request: HttpRequest) -> HttpResponse:
        # The pages name this service's own address; hosts are bounded by ALLOWED_HOSTS.
        contribution_url = request.build_absolute_uri(reverse("contributions"))

        def build(load: Lazy) -> HttpResponse:
            context = base_context(load())
            if not context["meta"]:
                # Nothing published yet: the method's numbers as the next recompute will use them.
                context["method"] = presenters.method_numbers(selectors.configured_method())
            context.update(
                {
                    "axes": words.AXES,
                    "tiers": words.TIERS,
                    "flags": words.FLAG_WORDS,
                    "interval": presenters.interval_constants(),
                    "coverage": presenters.coverage_figures(),
                    "rank_range_words": words.RANK_RANGE_WORDS,
                    "adjusted_odds_words": words.ADJUSTED_ODDS_WORDS,
                    "columns": words.CONTRIBUTED_COLUMNS,
                    "views_explained": [
                        (words.VIEW_TITLES[key], text) for key, text in words.VIEW_EXPLANATIONS.items()
                    ],
                    "min_contributors": settings.PUBLIC_LABEL_MIN_CONTRIBUTORS,
                    "contribution_url": contribution_url,
                }
            )
            return render_page(template, context)

        return cached_page(request, page, (contribution_url,), build)

    view.__name__ = page
    return view


methodology = words_page("leaderboard/methodology.html", "methodology")
data = words_page("leaderboard/data.html", "data")


def render_contribute(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    """The contribute page, built per request, never from the page cache: its retraction form carries this
    visitor's CSRF token. The addresses it names are this host's (bounded by ALLOWED_HOSTS)."""
    _, snapshot_id = serving_snapshot()
    context = base_context(published_snapshot(snapshot_id))
    context.update(
        {
            "columns": words.CONTRIBUTED_COLUMNS,
            "contribution_url": request.build_absolute_uri(reverse("contributions")),
            # The plugin posts to /v1/contribute on the host its setting names.
            "plugin_setting": words.PLUGIN_URL_SETTING,
            "plugin_host": request.build_absolute_uri("/").rstrip("/"),
            "plugin_url": request.build_absolute_uri(reverse("plugin-contribute")),
            "plugin_install_file": words.PLUGIN_INSTALL_FILE,
            **extra,
        }
    )
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


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without this visitor's token (an old tab, blocked cookies): say what to do, in the site's page."""
    message = "The form had expired. Reload the page and send it again (the page needs cookies for this form)."
    return render(request, "404.html", {"message": message, "title": "Form expired"}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "500.html", status=500)
