"""The public pages: one view each, built from the newest snapshot and kept per snapshot (serving.py).

Every page costs at most three queries on a cache miss (the generation, the snapshot, and one of:
score history, cycles for a window, the two groups' stored bootstrap samples) and none on a hit.
The views fetch (the published snapshot, windows, comparisons) and answer; what a page prints is put together in
contexts.py from presenters.py's pieces.
"""

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_POST, require_safe

from core.http import NotFound, not_found_page, param
from core.throttles import ThrottleUnavailableError, address_wait
from ingest.contract import parse_install
from ingest.services import retract
from leaderboard import selectors
from leaderboard.published import Lazy, Published, current_snapshot, serving_snapshot
from leaderboard.windows import Window
from pages import changelog, contexts, downloads, lab_links, matrix, pairing_sides, presenters, wording
from pages.compare import (
    advantages_context,
    compare_context,
    compared,
    compared_labels,
    comparison_context,
    switch_context,
)
from pages.lenses import lens_scores, partial_if_pending
from pages.serving import cached_page, chosen_view, render_page
from pages.windowed import Windowed, lens_parts, read_window, windowed_document, windowed_page
from scoring import Comparison
from scoring.compare_axes import AxisDifference
from scoring.shapes import PAIRING_VIEWS, PoolDocument, View

HISTORY_POINTS = 60
NO_SUCH_VIEW = "There is no such view."


def published_view(
    snapshot: Published | None, view: str, document: PoolDocument | None = None
) -> tuple[Published, View]:
    """The published snapshot and one view of it (of `document`, a window's, when given); NotFound when there is
    none or no such view."""
    if snapshot is None:
        raise NotFound("Nothing is ranked yet.")
    try:
        return snapshot, presenters.find_view(document or snapshot.document, view)
    except presenters.UnknownGroup:
        raise NotFound(NO_SUCH_VIEW) from None


def lens_of(request: HttpRequest) -> Window:
    """The harness lens of a page about one or two groups (all time: their pages take no days)."""
    return read_window({"harness": param(request, "harness")}, today=timezone.now().date())


def lens_page(
    request: HttpRequest,
    page: str,
    view: str,
    window: Window,
    labels: tuple[str, ...],
    answer: Callable[[Published, View], HttpResponse],
) -> HttpResponse:
    """A page about one or two groups (`labels`) of a view under the harness lens, kept per view, labels and
    lens: the reason when the lens cannot be shown, else `answer` of the snapshot and the view's document."""

    def build(load: Lazy) -> HttpResponse:
        scope = windowed_document(request, window, load)
        if scope.refused:
            return scope.refused_page()
        response = answer(*published_view(scope.snapshot, view, scope.document))
        scope.kept_only_if_current(response)
        return response

    return cached_page(request, page, (view, *labels, *lens_parts(window)), build)


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page(NO_SUCH_VIEW)
    sort = presenters.chosen_sort(param(request, "sort"))

    def context_of(scoped: Windowed) -> dict[str, Any]:
        return contexts.leaderboard_context(
            scoped.snapshot, scoped.document, view=view, window=scoped.window, sort=sort
        )

    return windowed_page(request, "leaderboard", "pages/leaderboard.html", view, context_of, sort)


@require_safe
def pairing_matrix(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page(NO_SUCH_VIEW)
    if view not in PAIRING_VIEWS:
        return render_page("pages/matrix.html", matrix.not_a_pairing_view_context(view), status=404)

    def context_of(scoped: Windowed) -> dict[str, Any]:
        return matrix.matrix_context(scoped.snapshot, scoped.document, view=view, window=scoped.window)

    return windowed_page(request, "matrix", "pages/matrix.html", view, context_of)


@require_safe
def pairing(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page(NO_SUCH_VIEW)
    label = param(request, "label")
    window = lens_of(request)

    def answer(snapshot: Published, view_doc: View) -> HttpResponse:
        context = contexts.pairing_context(snapshot, view_doc, view=view, label=label)
        lenses = lens_scores(snapshot.id, snapshot.document, window, view, label)
        context.update(contexts.lens_context(window, lenses))
        try:
            group = presenters.find_group(view_doc, label)
        except presenters.UnknownGroup:
            provisional = contexts.provisional_context(view_doc, label)
            if provisional is None:
                under = f" under the harness {window.harness}" if window.harness else ""
                raise NotFound(f"No group of that name in the view {wording.VIEW_TITLES[view]}{under}.") from None
            return partial_if_pending(render_page("pages/provisional.html", context | provisional), lenses)
        # The score history is of the published snapshots: the whole pool's.
        history = selectors.score_history(view, label, points=HISTORY_POINTS) if window.is_snapshot else []
        document = snapshot.document
        context.update(
            contexts.group_context(group, view_doc, view=view, label=label, history=history, document=document)
        )
        context.update(pairing_sides.sides_context(view_doc, view=view, label=label, group=group, document=document))
        context["in_the_lab"] = lab_links.in_the_lab(view, label)
        return partial_if_pending(render_page("pages/pairing.html", context), lenses)

    return lens_page(request, "pairing", view, window, (label,), answer)


@require_safe
def compare(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page(NO_SUCH_VIEW)
    label_a, label_b = param(request, "a"), param(request, "b")
    window = lens_of(request)

    def answer(snapshot: Published, view_doc: View) -> HttpResponse:
        context = compare_context(snapshot, view_doc, view=view)
        context.update(contexts.lens_context(window, []))
        context["tab_suffix"] = context["lens_suffix"]
        chosen_a, chosen_b = compared_labels(view_doc, label_a, label_b)
        if not chosen_a or not chosen_b:
            return render_page("pages/compare.html", context | {"a": None, "b": None})
        try:
            group_a, group_b = presenters.find_group(view_doc, chosen_a), presenters.find_group(view_doc, chosen_b)
        except presenters.UnknownGroup:
            raise NotFound(f"No such group in the view {wording.VIEW_TITLES[view]}.") from None
        difference: Comparison | None = None
        axes: tuple[AxisDifference, ...] = ()
        kept = False
        if chosen_a != chosen_b:
            difference, axes, kept = compared(snapshot.id, view, group_a, group_b, window)
        context.update(
            comparison_context(view_doc, group_a, group_b, view=view, difference=difference, document=snapshot.document)
        )
        if chosen_a != chosen_b:
            context.update(switch_context(difference, group_a, group_b, axes, kept) | advantages_context(axes, kept))
        return render_page("pages/compare.html", context)

    return lens_page(request, "compare", view, window, (label_a, label_b), answer)


def prose_page(template: str, page: str, with_downloads: bool = False) -> Callable[[HttpRequest], HttpResponse]:
    """A prose page about the method or the data, with the newest snapshot's numbers in it
    (and, for the data page, the size of each download)."""

    @require_safe
    def view(request: HttpRequest) -> HttpResponse:
        # The cycles file is written after its snapshot is published: its tag is part of the page's key.
        cycles = downloads.cycles_sizes(serving_snapshot()[1]) if with_downloads else None

        def build(load: Lazy) -> HttpResponse:
            snapshot = load()
            context = contexts.prose_context(snapshot)
            if not context["meta"]:
                # Nothing published yet: the method's numbers as the next recompute will use them.
                context["method"] = contexts.method_numbers(selectors.configured_method())
            if with_downloads:
                context["cycles_sizes"] = cycles
                context["ranking_sizes"] = {
                    view: len(downloads.rankings_body(view, view_doc))
                    for view, view_doc in ((snapshot.document.get("views") or {}) if snapshot else {}).items()
                }
            return render_page(template, context)

        # Nothing of the request but the page and its file choose it: the page names no address of this
        # service, so the Host header (whose port is the client's to choose) never makes a copy of its own.
        return cached_page(request, page, (cycles.etag if cycles else "",), build)

    view.__name__ = page
    return view


methodology = prose_page("pages/methodology.html", "methodology")
data = prose_page("pages/data.html", "data", with_downloads=True)
glossary = prose_page("pages/glossary.html", "glossary")


@require_safe
def methodology_changes(request: HttpRequest) -> HttpResponse:
    """The methodology changelog, read from docs/CHANGELOG.md; kept per snapshot and version of the file."""
    changes = changelog.read_changelog()

    def build(load: Lazy) -> HttpResponse:
        return render_page("pages/methodology_changes.html", contexts.page_context(load()) | {"changes": changes.html})

    return cached_page(request, "methodology-changes", (changes.digest,), build)


def render_contribute(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    """The contribute page, built per request, never from the page cache: its retraction form carries this
    visitor's CSRF token. The addresses it names are this host's (bounded by ALLOWED_HOSTS)."""
    snapshot = current_snapshot()
    context = contexts.contribute_context(
        snapshot,
        contribution_url=request.build_absolute_uri(reverse("contributions")),
        plugin_url=request.build_absolute_uri(reverse("plugin-contribute")),
    )
    response = render(request, "pages/contribute.html", context | extra, status=status)
    patch_cache_control(response, private=True, no_cache=True)
    response["X-Snapshot"] = str(snapshot.id if snapshot else 0)
    return response


@require_safe
def contribute(request: HttpRequest) -> HttpResponse:
    return render_contribute(request)


@require_POST
def retract_form(request: HttpRequest) -> HttpResponse:
    """The retraction a plugin user can do: paste the install id, every cycle of it is deleted.

    The id is never shown back, logged or stored; only its keyed hash is remembered (ingest.services.retract).
    """
    wait = address_wait(request)
    if wait is None:
        error = "Retraction is unavailable for a minute; try again shortly."
        response = render_contribute(request, status=503, retract_error=error)
        response["Retry-After"] = str(ThrottleUnavailableError.wait)
        return response
    if wait:
        error = f"Too many requests from your address; try again in {wait} seconds."
        response = render_contribute(request, status=429, retract_error=error)
        response["Retry-After"] = str(wait)
        return response
    install = parse_install(request.POST.get("install", "").strip())
    if install is None:
        error = 'That is not an install id: paste the value of "install" from the file named below.'
        return render_contribute(request, status=400, retract_error=error)
    return render_contribute(request, retracted=retract(install=install, now=timezone.now()))


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without this visitor's token (an old tab, blocked cookies): say what to do, in the site's page."""
    message = "The form had expired. Reload the page and send it again (the page needs cookies for this form)."
    return render(request, "404.html", {"message": message, "title": "Form expired"}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "500.html", status=500)
