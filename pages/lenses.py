"""A group under each harness: the pairing page's side-by-side of the lenses already computed.

Read from the cache only (one read of every lens of the snapshot): a page view never starts their
computations; each one not computed yet links to its own lens page, and the page is not kept until it is.
"""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control

from core import soft_cache
from leaderboard.lenses import published_harnesses
from leaderboard.windows import Window, scope_key
from pages.presenters import UnknownGroup, find_group, interval, rank_text
from scoring.shapes import PoolDocument


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


def lens_scores(snapshot_id: int, document: PoolDocument, window: Window, view: str, label: str) -> list[LensScore]:
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
        lens: PoolDocument | None = found.get(key)
        if lens is None:
            scores.append(LensScore(name, url, name == window.harness, computed=False))
            continue
        view_doc = lens["views"][view]
        try:
            group = find_group(view_doc, label)
        except UnknownGroup:
            scores.append(LensScore(name, url, name == window.harness, computed=True))
            continue
        lo, hi = interval(group)
        scores.append(
            LensScore(
                name,
                url,
                name == window.harness,
                computed=True,
                ranked=True,
                score_adj=group["scoreAdj"],
                lo=lo,
                hi=hi,
                contributors=group["contributors"],
                rank=rank_text(group),
            )
        )
    return scores


def partial_if_pending(response: HttpResponse, lenses: list[LensScore]) -> HttpResponse:
    """Mark a page that links to a lens not computed yet as not to be kept (core.page_cache keeps no no-cache
    page): once the lens is computed, the next view shows its numbers."""
    if any(not lens.computed for lens in lenses):
        patch_cache_control(response, no_cache=True)
    return response
