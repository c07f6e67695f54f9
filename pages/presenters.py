"""What the public pages show, read from a ranking document (pool.json shape plus caveats).

Plain functions over dicts: the views fetch, these shape, the templates print (each page's context is
put together in contexts.py). Distances and positions on the x4 scale are the scoring method's own
functions (scoring/finishing.py).
"""

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from pages.charts import OKABE_ITO, OTHER_COLOUR, family_colours
from pages.wording import (
    ADJUSTED_ODDS_WORDS,
    AXES,
    DEFAULT_SORT,
    FLAG_WORDS,
    SORTS,
    TIERS,
    VIEW_TITLES,
)
from scoring.finishing import log_distance, positions
from scoring.groupings import family
from scoring.public_labels import OTHER_LABEL
from scoring.shapes import PAIR_ARROW, GroupRow, PoolDocument, ProvisionalRow, View, ViewMeta, number

# Views whose labels carry an effort (model:effort), and views whose labels are families already.
EFFORT_VIEWS = frozenset({"modelEffort", "modelEffortCombo"})
FAMILY_VIEWS = frozenset({"family", "famCombo"})


class UnknownGroup(LookupError):
    """A view or label that the document does not hold: the page answers 404."""


# ---------------------------------------------------------------- reading documents


def find_view(document: PoolDocument, view: str) -> View:
    views = document["views"]
    if view not in VIEW_TITLES or view not in views:
        raise UnknownGroup(view)
    return views[view]


def find_group(view_doc: View, label: str) -> GroupRow:
    for group in view_doc["groups"]:
        if group["label"] == label:
            return group
    raise UnknownGroup(label)


def planner_and_builder(group: GroupRow | ProvisionalRow) -> tuple[str, str] | None:
    """The two sides of a pairing label; None for the single-model views."""
    ranked = cast(GroupRow, group)  # only a ranked pairing row carries its two sides; get() is None on others
    planner, builder = ranked.get("planner"), ranked.get("builder")
    if planner and builder:
        return planner, builder
    label = group["label"]
    if PAIR_ARROW in label:
        planner, builder = label.split(PAIR_ARROW, 1)
        return planner, builder
    return None


def flag_words(group: GroupRow) -> list[str]:
    return [FLAG_WORDS.get(flag, flag) for flag in group["flags"]]


def interval(group: GroupRow) -> tuple[float | None, float | None]:
    """The interval of scoreAdj; (None, None) for one contributor, who gets none (B1)."""
    ci = group["ci"]
    return (None, None) if ci is None else (ci[0], ci[1])


def rank_range(group: GroupRow) -> tuple[int, int] | None:
    """Best and worst point rank (by scoreAdj alone) when each contributor in turn is left out, when computed."""
    found = group.get("rank_range")
    return None if found is None else (found[0], found[1])


def rank_places(group: GroupRow) -> tuple[int, int]:
    """The places the intervals allow (B1): (rank, rank_worst)."""
    best = group["rank"]
    return best, max(best, group["rank_worst"])


def spans_every_place(group: GroupRow, ranked: int) -> bool:
    """True when the intervals allow this group every place from first to last: it is separated from none."""
    return ranked > 1 and rank_places(group) == (1, ranked)


def rank_text(group: GroupRow) -> str:
    """`1`, or `2–5` where the intervals leave a range of places, `1–12` when they allow every place of twelve.

    Always the range, so every row reads alike and the glossary's one entry (rank range) explains them all.
    """
    best, worst = rank_places(group)
    return str(best) if best == worst else f"{best}–{worst}"


def stability_note(group: GroupRow) -> str:
    """The leave-one-contributor-out range, as a short note only where it reaches outside the rank range.

    It is a stability check on the point order, not a confidence statement: inside the rank range it adds nothing.
    """
    places, moved = rank_places(group), rank_range(group)
    if moved is None or (places[0] <= moved[0] and moved[1] <= places[1]):
        return ""
    span = str(moved[0]) if moved[0] == moved[1] else f"{moved[0]}–{moved[1]}"
    return f"without one contributor: place {span} by score alone"


def odds_ratio_text(value: object) -> str:
    as_number = number(value)
    return "n/a" if as_number is None else f"×{as_number:.2f}"


def shipping_odds_words(group: GroupRow, view_meta: ViewMeta) -> dict[str, str] | None:
    """The contributor-adjusted ship odds in words, beside the raw ship rate; None where the view has none.

    kind is "ok" (odds and interval), "not-separable" (one contributor gave every fitted cycle), "unavailable"
    (the view's fit did not run or converge) or "not-computed" (the fit left this group out).
    """
    if "adjustment" not in view_meta:
        return None  # a view the adjustment is not made for
    shipr = group["raw"].get("shipr")
    words = {"raw": "ship rate n/a (raw)" if shipr is None else f"ship rate {shipr:.0f}% (raw)"}
    if view_meta["adjustment"] != "ok":
        return {**words, "kind": "unavailable", "adjusted": "adjustment unavailable", "short": "unavailable"}
    adjusted = group.get("adjusted")
    odds = adjusted["odds_ratio"] if adjusted is not None else None
    if adjusted is not None and adjusted["separable"] is False:
        return {
            **words,
            "kind": "not-separable",
            "adjusted": "not separable: every cycle from one contributor",
            "short": "one contributor",
        }
    if adjusted is None or adjusted["separable"] is not True or odds is None:
        return {**words, "kind": "not-computed", "adjusted": "no adjusted odds for this group", "short": "n/a"}
    lo, hi = adjusted["ci"]
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


def variance_share_words(view_meta: ViewMeta) -> str:
    """The contributors' share of the variance in shipping, in a sentence; empty where the view has no fit."""
    if "adjustment" not in view_meta:
        return ""
    if view_meta["adjustment"] != "ok":
        reason = view_meta["adjustment"].removeprefix("adjustment unavailable").lstrip(": ")
        because = f" ({reason})" if reason else ""
        return f"Contributor adjustment unavailable for this view{because}: ship rates are shown raw only."
    share_value = view_meta.get("contributor_variance_share")
    if share_value is None:
        return ""
    return (
        f"Of the variation in shipping that the model puts down to who ran a cycle or to the pairing, "
        f"{share_value * 100:.0f}% belongs to the contributors and {100 - round(share_value * 100):.0f}% "
        f"to the pairings."
    )


def odds_value(group: GroupRow) -> float | None:
    """The contributor-adjusted odds ratio where the document has one for this group."""
    adjusted = group.get("adjusted")
    return adjusted["odds_ratio"] if adjusted is not None and adjusted["separable"] is True else None


def group_family(group: GroupRow | ProvisionalRow, view: str, pattern: str) -> str:
    """The family a group is coloured by: its model's, or its builder's in a pairing view (scoring spec A1)."""
    sides = planner_and_builder(group)
    name = sides[1] if sides else group["label"]
    if view in EFFORT_VIEWS:
        name = name.rsplit(":", 1)[0]  # model:effort
    return name if view in FAMILY_VIEWS else family(name, pattern)


def view_colours(view_doc: View, view: str, pattern: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Each group's colour by label (ranked and provisional), and the legend: (family, colour) in palette order.

    Families past the palette's eight share one grey, named once in the legend as the other families.
    """
    groups: list[GroupRow | ProvisionalRow] = [*view_doc["groups"], *view_doc["provisional"]]
    families = {g["label"]: group_family(g, view, pattern) for g in groups}
    palette = family_colours(families.values())
    legend = [(name, colour) for name, colour in palette.items() if colour != OTHER_COLOUR]
    others = len(palette) - len(legend)
    if others:
        legend.append((f"{others} other {'family' if others == 1 else 'families'}", OTHER_COLOUR))
    return {label: palette[name] for label, name in families.items()}, legend


def leaderboard_rows(view_doc: View, colours: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per ranked group, in the document's order: by scoreAdj, best first; coloured as `colours` says."""
    rows = []
    groups = view_doc["groups"]
    for group in groups:
        lo, hi = interval(group)
        rank = group["rank"]
        rows.append(
            {
                "group": group,
                "label": group["label"],
                "sides": planner_and_builder(group),
                "rank": rank,
                "rank_text": rank_text(group),
                "not_separated": spans_every_place(group, len(groups)),
                "ship_rate": group["raw"].get("shipr"),
                "odds": odds_value(group),
                "stability": stability_note(group),
                "score_adj": group["scoreAdj"],
                "lo": lo,
                "hi": hi,
                "tiers": [(name, group["tiersAdj"].get(name)) for name in TIERS],
                "imputed": list(group["imputed"]),
                "hjudged": group["hjudged"],
                "contributors": group["contributors"],
                "top_share": group["top_share"],
                "flags": flag_words(group),
                # (the caveat's name, its explanation): the table prints the name and keeps the rest as a tooltip
                "caveats": [(words.split(":", 1)[0], words) for words in flag_words(group)],
                "colour": (colours or {}).get(group["label"], OKABE_ITO[0]),
                "adjusted": group.get("adjusted"),
                "shipping": shipping_odds_words(group, view_doc["meta"]),
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


def row_for(view_doc: View, label: str, colours: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One group's leaderboard row."""
    for row in leaderboard_rows(view_doc, colours):
        if row["label"] == label:
            return row
    raise UnknownGroup(label)


def provisional_rows(view_doc: View) -> list[dict[str, Any]]:
    return [
        {"label": item["label"], "hjudged": item["hjudged"], "raw": item["raw"]} for item in view_doc["provisional"]
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


def span_of(view_doc: View) -> float:
    return float(view_doc["span"])


def axis_rows(group: GroupRow, view_doc: View) -> list[dict[str, Any]]:
    pool, raw, adj, evidence = view_doc["pool"], group["raw"], group["adj"], group["ev"]
    span = span_of(view_doc)
    pool_values = [pool.get(axis.key) for axis in AXES]
    raw_values = [raw.get(axis.key) for axis in AXES]
    adj_values = [adj.get(axis.key) for axis in AXES]
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


def has_other(view_doc: View) -> bool:
    labels = [g["label"] for g in [*view_doc["groups"], *view_doc["provisional"]]]
    return any(OTHER_LABEL in label for label in labels)
