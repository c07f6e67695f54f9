"""What the public pages show, read from a ranking document (pool.json shape plus caveats).

Plain functions over dicts: the views fetch, these shape, the templates print (each page's context is
put together in contexts.py). Distances and positions on the x4 scale are the scoring method's own
functions (scoring/finishing.py).
"""

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pages.charts import OKABE_ITO, OTHER_COLOUR, family_colours
from pages.wording import (
    ADJUSTED_ODDS_WORDS,
    AXES,
    DEFAULT_SORT,
    FLAG_WORDS,
    NOT_SEPARATED,
    SORTS,
    TIERS,
    VIEW_TITLES,
)
from scoring.finishing import log_distance, positions
from scoring.groupings import family
from scoring.public_labels import OTHER_LABEL
from scoring.shapes import PAIR_ARROW, SPAN, number

# Views whose labels carry an effort (model:effort), and views whose labels are families already.
EFFORT_VIEWS = frozenset({"modelEffort", "modelEffortCombo"})
FAMILY_VIEWS = frozenset({"family", "famCombo"})


class UnknownGroup(LookupError):
    """A view or label that the document does not hold: the page answers 404."""


# ---------------------------------------------------------------- reading documents


def find_view(document: dict[str, Any], view: str) -> dict[str, Any]:
    views = document.get("views") or {}
    if view not in VIEW_TITLES or view not in views:
        raise UnknownGroup(view)
    found: dict[str, Any] = views[view]
    return found


def find_group(view_doc: dict[str, Any], label: str) -> dict[str, Any]:
    for group in view_doc.get("groups", []):
        if group.get("label") == label:
            found: dict[str, Any] = group
            return found
    raise UnknownGroup(label)


def planner_and_builder(group: dict[str, Any]) -> tuple[str, str] | None:
    """The two sides of a pairing label; None for the single-model views."""
    if group.get("planner") and group.get("builder"):
        return str(group["planner"]), str(group["builder"])
    label = str(group.get("label", ""))
    if PAIR_ARROW in label:
        planner, builder = label.split(PAIR_ARROW, 1)
        return planner, builder
    return None


def flag_words(group: dict[str, Any]) -> list[str]:
    return [FLAG_WORDS.get(flag, flag) for flag in group.get("flags", [])]


def interval(group: dict[str, Any]) -> tuple[float | None, float | None]:
    ci = group.get("ci") or [None, None]
    if not isinstance(ci, list | tuple) or len(ci) != 2:
        return None, None
    return number(ci[0]), number(ci[1])


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rank_range(group: dict[str, Any]) -> tuple[int, int] | None:
    """Best and worst point rank (by scoreAdj alone) when each contributor in turn is left out, when computed."""
    found = group.get("rank_range")
    if isinstance(found, list | tuple) and len(found) == 2 and all(_whole(v) is not None for v in found):
        return int(found[0]), int(found[1])
    return None


def rank_places(group: dict[str, Any]) -> tuple[int, int] | None:
    """The places the intervals allow (B1): (rank, rank_worst); rank_worst defaults to rank in older documents."""
    best = _whole(group.get("rank"))
    if best is None:
        return None
    worst = _whole(group.get("rank_worst"))
    return best, max(best, worst if worst is not None else best)


def spans_every_place(group: dict[str, Any], ranked: int) -> bool:
    """True when the intervals allow this group every place from first to last: it is separated from none."""
    return ranked > 1 and rank_places(group) == (1, ranked)


def rank_text(group: dict[str, Any], ranked: int = 0) -> str:
    """`1`, or `2–5` where the intervals leave a range of places; "not separated" when they allow every place."""
    places = rank_places(group)
    if places is None:
        return "–"
    if spans_every_place(group, ranked):
        return NOT_SEPARATED
    best, worst = places
    return str(best) if best == worst else f"{best}–{worst}"


def stability_note(group: dict[str, Any]) -> str:
    """The leave-one-contributor-out range, as a short note only where it reaches outside the rank range.

    It is a stability check on the point order, not a confidence statement: inside the rank range it adds nothing.
    """
    places, moved = rank_places(group), rank_range(group)
    if places is None or moved is None or (places[0] <= moved[0] and moved[1] <= places[1]):
        return ""
    span = str(moved[0]) if moved[0] == moved[1] else f"{moved[0]}–{moved[1]}"
    return f"without one contributor: place {span} by score alone"


def odds_ratio_text(value: object) -> str:
    as_number = number(value)
    return "n/a" if as_number is None else f"×{as_number:.2f}"


def shipping_odds_words(group: dict[str, Any], view_meta: dict[str, Any]) -> dict[str, str] | None:
    """The contributor-adjusted ship odds in words, beside the raw ship rate; None where the view has none.

    kind is "ok" (odds and interval), "not-separable" (one contributor gave every fitted cycle), "unavailable"
    (the view's fit did not run or converge) or "not-computed" (the fit left this group out).
    """
    if "adjustment" not in view_meta:
        return None  # a view the adjustment is not made for
    shipr = number((group.get("raw") or {}).get("shipr"))
    words = {"raw": "ship rate n/a (raw)" if shipr is None else f"ship rate {shipr:.0f}% (raw)"}
    if view_meta.get("adjustment") != "ok":
        return {**words, "kind": "unavailable", "adjusted": "adjustment unavailable", "short": "unavailable"}
    adjusted = group.get("adjusted") or {}
    ci = adjusted.get("ci") or [None, None]
    odds = number(adjusted.get("odds_ratio"))
    if adjusted.get("separable") is False:
        return {
            **words,
            "kind": "not-separable",
            "adjusted": "not separable: every cycle from one contributor",
            "short": "one contributor",
        }
    if adjusted.get("separable") is not True or odds is None:
        return {**words, "kind": "not-computed", "adjusted": "no adjusted odds for this group", "short": "n/a"}
    lo, hi = (number(ci[0]), number(ci[1])) if isinstance(ci, list | tuple) and len(ci) == 2 else (None, None)
    interval_text = f" [{lo:.2f}–{hi:.2f}]" if lo is not None and hi is not None else ""
    return {
        **words,
        "kind": "ok",
        "adjusted": f"{ADJUSTED_ODDS_WORDS} ×{odds:.2f}{interval_text}",
        "short": f"×{odds:.2f}",
        "interval": interval_text.strip(" []"),
        "odds": odds_ratio_text(odds),
        "lo": odds_ratio_text(lo),
        "hi": odds_ratio_text(hi),
    }


def variance_share_words(view_meta: dict[str, Any]) -> str:
    """The contributors' share of the variance in shipping, in a sentence; empty where the view has no fit."""
    if "adjustment" not in view_meta:
        return ""
    if view_meta.get("adjustment") != "ok":
        reason = str(view_meta.get("adjustment") or "").removeprefix("adjustment unavailable").lstrip(": ")
        because = f" ({reason})" if reason else ""
        return f"Contributor adjustment unavailable for this view{because}: ship rates are shown raw only."
    share_value = number(view_meta.get("contributor_variance_share"))
    if share_value is None:
        return ""
    return (
        f"Of the variation in shipping that the model puts down to who ran a cycle or to the pairing, "
        f"{share_value * 100:.0f}% belongs to the contributors and {100 - round(share_value * 100):.0f}% "
        f"to the pairings."
    )


def odds_value(group: dict[str, Any]) -> float | None:
    """The contributor-adjusted odds ratio where the document has one for this group."""
    adjusted = group.get("adjusted") or {}
    return number(adjusted.get("odds_ratio")) if adjusted.get("separable") is True else None


def group_family(group: dict[str, Any], view: str, pattern: str) -> str:
    """The family a group is coloured by: its model's, or its builder's in a pairing view (scoring spec A1)."""
    sides = planner_and_builder(group)
    name = sides[1] if sides else str(group.get("label", ""))
    if view in EFFORT_VIEWS:
        name = name.rsplit(":", 1)[0]  # model:effort
    return name if view in FAMILY_VIEWS else family(name, pattern)


def view_colours(view_doc: dict[str, Any], view: str, pattern: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Each group's colour by label (ranked and provisional), and the legend: (family, colour) in palette order.

    Families past the palette's eight share one grey, named once in the legend as the other families.
    """
    groups = [*view_doc.get("groups", []), *view_doc.get("provisional", [])]
    families = {str(g.get("label", "")): group_family(g, view, pattern) for g in groups}
    palette = family_colours(families.values())
    legend = [(name, colour) for name, colour in palette.items() if colour != OTHER_COLOUR]
    others = len(palette) - len(legend)
    if others:
        legend.append((f"{others} other {'family' if others == 1 else 'families'}", OTHER_COLOUR))
    return {label: palette[name] for label, name in families.items()}, legend


def leaderboard_rows(view_doc: dict[str, Any], colours: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per ranked group, in the document's order: by scoreAdj, best first; coloured as `colours` says."""
    rows = []
    groups = view_doc.get("groups", [])
    for group in groups:
        lo, hi = interval(group)
        rank = group.get("rank")
        rows.append(
            {
                "group": group,
                "label": group.get("label", ""),
                "sides": planner_and_builder(group),
                "rank": rank,
                "rank_text": rank_text(group, len(groups)),
                "not_separated": spans_every_place(group, len(groups)),
                "ship_rate": number((group.get("raw") or {}).get("shipr")),
                "odds": odds_value(group),
                "stability": stability_note(group),
                "score_adj": number(group.get("scoreAdj")),
                "lo": lo,
                "hi": hi,
                "tiers": [(name, number((group.get("tiersAdj") or {}).get(name))) for name in TIERS],
                "imputed": list(group.get("imputed", [])),
                "hjudged": group.get("hjudged", 0),
                "contributors": group.get("contributors"),
                "top_share": number(group.get("top_share")),
                "flags": flag_words(group),
                # (the caveat's name, its explanation): the table prints the name and keeps the rest as a tooltip
                "caveats": [(words.split(":", 1)[0], words) for words in flag_words(group)],
                "colour": (colours or {}).get(str(group.get("label", "")), OKABE_ITO[0]),
                "adjusted": group.get("adjusted"),
                "shipping": shipping_odds_words(group, view_doc.get("meta") or {}),
                "rank_range": rank_range(group),
            }
        )
    return rows


def chosen_sort(raw: str) -> str:
    """The ?sort= asked for, or the default for any value not offered (a bounded set: one cached page each)."""
    return raw if raw in SORTS else DEFAULT_SORT


# ?sort= value -> the row value it orders by, largest first.
_SORT_VALUES: dict[str, str] = {
    "scoreAdj": "score_adj",
    "shipr": "ship_rate",
    "odds": "odds",
    "contributors": "contributors",
    "judged": "hjudged",
}


def sorted_rows(rows: list[dict[str, Any]], sort: str) -> list[dict[str, Any]]:
    """The rows ordered by one column, largest first, rows without a value last; ties keep the document's order."""
    key = _SORT_VALUES[chosen_sort(sort)]
    present = [row for row in rows if number(row.get(key)) is not None]
    missing = [row for row in rows if number(row.get(key)) is None]
    return sorted(present, key=lambda row: -float(row[key])) + missing


def row_for(view_doc: dict[str, Any], label: str, colours: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One group's leaderboard row."""
    for row in leaderboard_rows(view_doc, colours):
        if row["label"] == label:
            return row
    raise UnknownGroup(label)


def provisional_rows(view_doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"label": item.get("label", ""), "hjudged": item.get("hjudged", 0), "raw": item.get("raw") or {}}
        for item in view_doc.get("provisional", [])
    ]


# ---------------------------------------------------------------- positions on the x4 scale


def _array(values: list[float | None]) -> np.ndarray:
    return np.array([np.nan if value is None else value for value in values], dtype=np.float64)


def distances(values: list[float | None], references: list[float | None]) -> list[float | None]:
    """Scoring spec A5 per axis (AXES order): base-2 distance of each value from its reference, better
    positive, ±inf kept; None where the method says null."""
    found = log_distance(_array(values)[None, :], _array(references)[None, :])[0]
    return [None if math.isnan(r) else float(r) for r in found]


def place(distance: float | None, span: float) -> float | None:
    """Where a distance sits on the strip, 0..1 with the pool at 0.5."""
    return None if distance is None else float(positions(np.array([distance]), span)[0])


def span_of(view_doc: dict[str, Any]) -> float:
    span = number(view_doc.get("span"))
    return span if span and span > 0 else float(SPAN)


def axis_rows(group: dict[str, Any], view_doc: dict[str, Any]) -> list[dict[str, Any]]:
    pool = view_doc.get("pool") or {}
    span = span_of(view_doc)
    raw = group.get("raw") or {}
    adj = group.get("adj") or {}
    evidence = group.get("ev") or {}
    pool_values = [number(pool.get(axis.key)) for axis in AXES]
    raw_values = [number(raw.get(axis.key)) for axis in AXES]
    adj_values = [number(adj.get(axis.key)) for axis in AXES]
    raw_distances, adj_distances = distances(raw_values, pool_values), distances(adj_values, pool_values)
    return [
        {
            "axis": axis,
            "raw": raw_values[i],
            "pool": pool_values[i],
            "adj": adj_values[i],
            "evidence": evidence.get(axis.key, 0),
            "raw_position": place(raw_distances[i], span),
            "adj_position": place(adj_distances[i], span),
        }
        for i, axis in enumerate(AXES)
    ]


def has_other(view_doc: dict[str, Any]) -> bool:
    labels = [str(g.get("label", "")) for g in [*view_doc.get("groups", []), *view_doc.get("provisional", [])]]
    return any(OTHER_LABEL in label for label in labels)
