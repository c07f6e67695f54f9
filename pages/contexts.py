"""What each page's template reads, one function per page, put together from the presenters' pieces.

The views fetch the snapshot and the view; these assemble the context; the templates print it.
"""

import json
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np
from django.conf import settings
from django.urls import reverse

from ingest.selectors import demo_set_aside
from leaderboard.lenses import published_harnesses
from leaderboard.published import Published, intervals_pending
from leaderboard.selectors import HistoryRow, configured_method
from leaderboard.windows import Window
from pages.charts import (
    HistoryPoint,
    axis_strip,
    forest_plot,
    history_words,
    interval_bar,
    score_domain,
    sparkline,
)
from pages.presenters import (
    axis_rows,
    chosen_sort,
    has_other,
    interval,
    leaderboard_rows,
    planner_and_builder,
    provisional_rows,
    row_for,
    sorted_rows,
    span_of,
    variance_share_words,
    view_colours,
)
from pages.verdict import verdict
from pages.windowed import lens_query, window_query
from pages.wording import (
    ADJUSTED_ODDS_WORDS,
    AXES,
    CONTRIBUTED_COLUMNS,
    DATA_LICENCE,
    DATA_LICENCE_URL,
    DEFAULT_SORT,
    FLAG_WORDS,
    INTERVAL_PERCENT,
    PLUGIN_INSTALL_FILE,
    PLUGIN_NPM_URL,
    PLUGIN_README_URL,
    PLUGIN_URL_SETTING,
    RANK_RANGE_WORDS,
    RECORDER_INSTALL_COMMANDS,
    SHOWN_TIERS,
    SORTS,
    TIERS,
    VIEW_EXPLANATIONS,
    VIEW_TITLES,
    WINDOW_TITLES,
    forest_words,
    other_words,
)
from scoring.bootstrap import t_factor
from scoring.shapes import (
    DEFAULT_FAMILY_PATTERN,
    DOMINATED_SHARE,
    INTERVAL_LEVEL,
    PAIRING_VIEWS,
    SPAN_FACTOR,
    THIN_BELOW,
    GroupRow,
    PoolDocument,
    View,
    number,
)

# bench/coverage.py writes its table here; the file is committed, so the page shows what was last measured.
COVERAGE_FILE = Path(__file__).resolve().parent.parent / "bench" / "results" / "coverage.json"
# Contributor counts whose interval multiplier the methodology page lists.
MULTIPLIER_CONTRIBUTORS = (2, 3, 5, 10, 20, 40)


def interval_constants() -> dict[str, Any]:
    """The interval's constants as the engine uses them: level, resamples, seed and t(q, K-1)·sqrt(K/(K-1))."""
    factors = t_factor(np.array(MULTIPLIER_CONTRIBUTORS))
    return {
        "level": INTERVAL_PERCENT,
        "quantile": f"{0.5 + INTERVAL_LEVEL / 2:g}",  # the t quantile of a two-sided interval: 0.975 for 95%
        "resamples": settings.SCORING_RESAMPLES,
        "seed": settings.SCORING_SEED,
        "multipliers": [(k, float(f)) for k, f in zip(MULTIPLIER_CONTRIBUTORS, factors, strict=True)],
    }


@lru_cache(maxsize=1)
def coverage_figures(path: Path = COVERAGE_FILE) -> dict[str, Any] | None:
    """bench/coverage.py's last measured table, or None when the file is missing or unreadable."""
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if (
        not isinstance(found, dict)
        or not isinstance(found.get("rows"), list)
        or not isinstance(found.get("meta"), dict)
    ):
        return None
    return found


def method_numbers(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The method's numbers as a ranking document states them: the floor, k, resamples, and the x4 span."""
    span = number(meta.get("span"))
    return {
        "min_judged": meta.get("minJudged"),
        "evidence_k": meta.get("evidenceK"),
        "resamples": meta.get("resamples"),
        "span_factor": round(2**span) if span else SPAN_FACTOR,
    }


def page_context(
    snapshot: Published | None, document: PoolDocument | None = None, *, view: str | None = None
) -> dict[str, Any]:
    """What every page prints: the snapshot, its meta and the method's numbers; the view, on a page of one."""
    if document is None and snapshot is not None:
        document = snapshot.document
    meta: Mapping[str, Any] = document["meta"] if document is not None else {}
    context: dict[str, Any] = {
        "snapshot": snapshot,
        "meta": meta,
        "is_demo": bool(meta.get("demo") or (snapshot and snapshot.is_demo)),
        "views": VIEW_TITLES,
        "method": method_numbers(meta),
    }
    if view is not None:
        context.update({"view": view, "view_title": VIEW_TITLES[view]})
    return context


def sort_query(sort: str) -> str:
    """The sort's part of a link, so switching views or windows keeps it; empty for the default."""
    return "" if sort == DEFAULT_SORT else f"&sort={sort}"


def leaderboard_context(
    snapshot: Published | None,
    document: PoolDocument | None,
    *,
    view: str,
    window: Window,
    sort: str = DEFAULT_SORT,
) -> dict[str, Any]:
    """The leaderboard of one view in one window; its rows only when there is a document to rank from."""
    context = page_context(snapshot, document, view=view)
    sort = chosen_sort(sort)
    context.update(
        {
            "window": window,
            "windows": WINDOW_TITLES,
            "window_suffix": window_query(window),
            "tab_suffix": window_query(window) + sort_query(sort),
            "tiers": TIERS,
            "shown_tiers": SHOWN_TIERS,
            "sort": sort,
            "sorts": SORTS,
        }
    )
    context.update(lens_context(window, []))
    if document is None:
        return context
    context["harnesses"] = published_harnesses(document)
    view_doc = document["views"][view]
    view_meta = view_doc["meta"]
    colours, legend = colours_of(view_doc, view, document)
    rows = leaderboard_rows(view_doc, colours)
    domain = score_domain(rows)
    for row in rows:
        row["bar"] = interval_bar(
            score=row["score_adj"], lo=row["lo"], hi=row["hi"], colour=row["colour"], label=row["label"], domain=domain
        )
    shown = sorted_rows(rows, sort)
    plotted = forest_words(None if sort == DEFAULT_SORT else SORTS[sort])
    context.update(
        {
            # Points alone have no intervals yet: no verdict rather than one read from point places.
            "verdict": None if intervals_pending(document) else verdict(rows, view=view),
            "forest": forest_plot(
                rows=[{**row, "href": pairing_href(view, row["label"], window)} for row in shown],
                title=f"{VIEW_TITLES[view]}: {plotted[0].lower()}{plotted[1:]}",
            )
            if shown
            else "",
            "forest_words": plotted,
            "legend": legend,
            "legend_side": "builder's family" if view in PAIRING_VIEWS else "family",
            "rows": shown,
            "has_odds": "adjustment" in view_meta,
            "odds_words": ADJUSTED_ODDS_WORDS,
            "provisional": waiting_rows(view_doc, context["method"]["min_judged"]),
            # Asked only of the whole real pool with nothing ranked: a window or a lens says nothing of the demo.
            "demo_hidden": not shown
            and window.is_all_time
            and not window.harness
            and not context["is_demo"]
            and demo_set_aside(),
            "rank_range_words": RANK_RANGE_WORDS,
            "scope_meta": document["meta"],
            "view_meta": view_meta,
            "variance_words": variance_share_words(view_meta),
            "is_pairing_view": view in PAIRING_VIEWS,
            "has_other": has_other(view_doc),
            "other_words": other_words(settings.PUBLIC_LABEL_MIN_CONTRIBUTORS),
        }
    )
    return context


def waiting_rows(view_doc: View, min_judged: int | None) -> list[dict[str, Any]]:
    """The provisional groups, each with how many more judged cycles it needs to be ranked."""
    return [
        {**row, "needs": max(0, min_judged - row["hjudged"]) if min_judged else None}
        for row in provisional_rows(view_doc)
    ]


def pairing_href(view: str, label: str, window: Window) -> str:
    """A group's page under the same harness lens, as the table's row links it."""
    return f"{reverse('pairing')}?{urlencode({'view': view, 'label': label})}{lens_query(window)}"


def lens_context(window: Window, lenses: list[Any]) -> dict[str, Any]:
    """The harness lens a page is under (None: every harness), the part of its links that keeps it, and the
    page's group under each harness (lenses.lens_scores)."""
    return {
        "lens": window.harness,
        "lens_suffix": lens_query(window),
        "every_harness_suffix": window_query(replace(window, harness=None)),
        "lens_scores": lenses,
    }


def pairing_context(snapshot: Published, view_doc: View, *, view: str, label: str) -> dict[str, Any]:
    """A group's page, ranked or provisional, with the method's numbers of its view."""
    context = page_context(snapshot, view=view)
    context["label"] = label
    context["method"] = method_numbers({**view_doc["meta"], "span": view_doc["span"]})
    return context


def provisional_context(view_doc: View, label: str) -> dict[str, Any] | None:
    """A provisional group's raw values, or None when the view holds no provisional group of that label."""
    found = [row for row in provisional_rows(view_doc) if row["label"] == label]
    return {"provisional": found[0], "axes": AXES} if found else None


def colours_of(view_doc: View, view: str, document: PoolDocument) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Each group's family colour and the view's legend, families read with the pattern the document was scored with
    (a page about one snapshot colours as that snapshot grouped, whatever the configuration says since)."""
    return view_colours(view_doc, view, document["meta"].get("familyPattern") or DEFAULT_FAMILY_PATTERN)


def group_context(
    group: GroupRow, view_doc: View, *, view: str, label: str, history: list[HistoryRow], document: PoolDocument
) -> dict[str, Any]:
    """A ranked group (of `document`'s view): its row, axes against the pool, tiers, interval and score history."""
    rows = axis_rows(group, view_doc)
    row = row_for(view_doc, label, colours_of(view_doc, view, document)[0])
    points = [HistoryPoint(*point) for point in history]
    lo, hi = interval(group)
    return {
        "group": group,
        "row": row,
        "ranked_count": len(view_doc["groups"]),
        "rank_range_words": RANK_RANGE_WORDS,
        "axis_rows": rows,
        "tiers": [
            (name, weight, group["tiers"].get(name), group["tiersAdj"].get(name)) for name, weight in TIERS.items()
        ],
        "strip": axis_strip(rows=rows, colour=row["colour"], label=label, span=span_of(view_doc)),
        "sparkline": "" if history_words(points) else sparkline(points=points, colour=row["colour"], label=label),
        "history_words": history_words(points),
        "lo": lo,
        "hi": hi,
        "sides": planner_and_builder(group),
        "pool": view_doc["pool"],
        "variance_words": variance_share_words(view_doc["meta"]),
    }


def prose_context(snapshot: Published | None) -> dict[str, Any]:
    """A prose page about the method or the data, with the snapshot's numbers in it."""
    context = page_context(snapshot)
    context.update(
        {
            "axes": AXES,
            "tiers": TIERS,
            "shown_tiers": SHOWN_TIERS,
            "tier_axes": {tier: [axis.name for axis in AXES if axis.tier == tier] for tier in TIERS},
            "flags": FLAG_WORDS,
            "thin_below": THIN_BELOW,
            "dominated_percent": round(100 * DOMINATED_SHARE),
            "interval": interval_constants(),
            "coverage": coverage_figures(),
            "rank_range_words": RANK_RANGE_WORDS,
            "adjusted_odds_words": ADJUSTED_ODDS_WORDS,
            "columns": CONTRIBUTED_COLUMNS,
            "data_licence": DATA_LICENCE,
            "data_licence_url": DATA_LICENCE_URL,
            "views_explained": [(VIEW_TITLES[key], text) for key, text in VIEW_EXPLANATIONS.items()],
            "min_contributors": settings.PUBLIC_LABEL_MIN_CONTRIBUTORS,
            "min_tenure_hours": settings.PUBLIC_LABEL_MIN_TENURE_HOURS,
            "min_days": settings.PUBLIC_LABEL_MIN_DAYS,
        }
    )
    return context


def contribute_context(snapshot: Published | None, *, contribution_url: str, plugin_url: str) -> dict[str, Any]:
    """The contribute page: where to send, what is sent, and what the OpenCode plugin needs set."""
    context = page_context(snapshot)
    context.update(
        {
            "columns": CONTRIBUTED_COLUMNS,
            "contribution_url": contribution_url,
            "plugin_setting": PLUGIN_URL_SETTING,
            "plugin_url": plugin_url,
            "plugin_install_file": PLUGIN_INSTALL_FILE,
            "plugin_readme_url": PLUGIN_README_URL,
            "plugin_npm_url": PLUGIN_NPM_URL,
            "install_commands": RECORDER_INSTALL_COMMANDS,
            # The floor as published, or as the next recompute will use it before anything is published.
            "min_judged": context["method"]["min_judged"] or configured_method()["minJudged"],
        }
    )
    return context
