"""What a page shows of a window: the document it ranks from (or why it cannot), and one group under each harness.

The leaderboard, the pairing page, compare and rankings.csv read their window here, so a harness lens and a
day window are computed, throttled and refused the same way on every one of them (services.scoped_document).
"""

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import HttpResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control

from leaderboard import services, soft_cache
from leaderboard.caching import Lazy, Published
from leaderboard.http import render_page
from leaderboard.lenses import published_harnesses
from leaderboard.presenters import UnknownGroup, find_group, interval, number, rank_text
from leaderboard.windows import Window, WindowError, scope_key
from scoring import Comparison, compare_from_samples


@dataclass(frozen=True)
class PageScope:
    """The window a page shows (with an error when it was refused), the snapshot and the document to rank from.

    `document` is the snapshot's own for the whole pool or a refused window (then `status` says why: 400, 429 or
    503, with `retry_after`), else the window's computed document.
    """

    window: Window
    snapshot: Published | None
    document: dict[str, Any] | None
    status: int = 200
    retry_after: int = 0
    refused: str = ""


def refused_page(scope: PageScope) -> HttpResponse:
    """A window a page or download could not show: the reason, with its status (and when to come back)."""
    response = render_page("404.html", {"message": scope.refused, "title": "Not shown"}, status=scope.status)
    if scope.retry_after:
        response["Retry-After"] = str(scope.retry_after)
    return response


def page_scope(window: Window, load: Lazy, requester: str) -> PageScope:
    """The document of `window` for a page: the snapshot's, or the window's computed within the slot rules."""
    if window.is_snapshot or window.error:
        snapshot = load()
        document = snapshot.document if snapshot else None
        return PageScope(window, snapshot, document, 400 if window.error else 200, refused=window.error)
    snapshot = load()  # held by the process: the page's own snapshot, usually without a query
    if snapshot is None:
        return PageScope(window, None, None)
    try:
        document = services.scoped_document(
            since=window.since, until=window.until, snapshot=snapshot, requester=requester, harness=window.harness
        )
    except WindowError as unknown:  # a harness this pool does not show
        return _refused(window, load, str(unknown), 400, 0)
    except services.WindowLimited as limited:
        error = f"Too many new windows from your address; try again in {limited.retry_after} seconds."
        return _refused(window, load, error, 429, limited.retry_after)
    except services.WindowBusy as busy:
        # Not cached (only 200s are): the next visit finds the window computed.
        error = "Another window is being computed; reload in a few seconds."
        return _refused(window, load, error, 503, busy.retry_after)
    return PageScope(window, snapshot, document)


def _refused(window: Window, load: Lazy, error: str, status: int, retry_after: int) -> PageScope:
    snapshot = load()
    shown = Window(window.name, error=error)
    return PageScope(shown, snapshot, snapshot.document if snapshot else None, status, retry_after, error)


@dataclass(frozen=True)
class LensScore:
    """One group's score under one harness: computed and ranked, computed and not ranked, or not computed yet."""

    harness: str
    url: str
    current: bool
    computed: bool
    ranked: bool = False
    score_adj: float | None = None
    lo: float | None = None
    hi: float | None = None
    contributors: int | None = None
    rank: str = ""


def lens_scores(snapshot_id: int, document: dict[str, Any], window: Window, view: str, label: str) -> list[LensScore]:
    """The group's score under each harness the snapshot shows, read only from lenses already computed (one
    cache read): a page view never starts their computations; each one not computed links to its own page."""
    harnesses = published_harnesses(document)
    if len(harnesses) < 2:
        return []
    keys = {name: scope_key(snapshot_id, window.since, window.until, name) for name in harnesses}
    found = soft_cache.get_many(list(keys.values())) or {}
    scores = []
    for name, key in keys.items():
        url = f"{reverse('pairing')}?{urlencode({'view': view, 'label': label, 'harness': name})}"
        lens = found.get(key)
        if lens is None:
            scores.append(LensScore(name, url, name == window.harness, computed=False))
            continue
        view_doc = (lens.get("views") or {}).get(view) or {}
        try:
            group = find_group(view_doc, label)
        except UnknownGroup:
            scores.append(LensScore(name, url, name == window.harness, computed=True))
            continue
        lo, hi = interval(group)
        contributors = group.get("contributors")
        scores.append(
            LensScore(
                name,
                url,
                name == window.harness,
                computed=True,
                ranked=True,
                score_adj=number(group.get("scoreAdj")),
                lo=lo,
                hi=hi,
                contributors=contributors if isinstance(contributors, int) else None,
                rank=rank_text(group, len(view_doc.get("groups", []))),
            )
        )
    return scores


def partial_if_pending(response: HttpResponse, lenses: list[LensScore]) -> HttpResponse:
    """Mark a page that links to a lens not computed yet as not to be kept (caching.cached_page keeps no
    no-cache page): once the lens is computed, the next view shows its numbers."""
    if any(not lens.computed for lens in lenses):
        patch_cache_control(response, no_cache=True)
    return response


def lens_difference(
    snapshot_id: int, window: Window, view: str, group_a: dict[str, Any], group_b: dict[str, Any]
) -> Comparison | None:
    """scoreAdj(A) - scoreAdj(B) of a computed window, from the resamples it was scored on (kept beside it);
    None once they are gone from the cache (the page then says the interval is not available)."""
    samples = soft_cache.get(scope_key(snapshot_id, window.since, window.until, window.harness) + ":samples")
    in_view = (samples or {}).get(view) or {}
    samples_a, samples_b = in_view.get(str(group_a["label"])), in_view.get(str(group_b["label"]))
    score_a, score_b = number(group_a.get("scoreAdj")), number(group_b.get("scoreAdj"))
    k_a, k_b = group_a.get("contributors"), group_b.get("contributors")
    if not samples_a or not samples_b or score_a is None or score_b is None:
        return None
    if not isinstance(k_a, int) or not isinstance(k_b, int):
        return None
    return compare_from_samples(
        score_a=score_a,
        score_b=score_b,
        samples_a=samples_a,
        samples_b=samples_b,
        contributors_a=k_a,
        contributors_b=k_b,
    )
