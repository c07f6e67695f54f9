"""`pragmatikos-record report`: a person's own groups scored on the published pool's scale, on their machine.

Each group of the person's judged cycles is scored as the board would score that group inside the published
pool: the same axes, shrinkage, positions, tiers and score, relative to the view's published pool values, through
the shared method (pragmatikos_contract.method) the service publishes with. Beside it: the pool's own numbers for
the same group, the person's interval from resampling their days, the axes where the person is clearly better
or worse than the pool, and the groups the pool ranks clearly above the person's main one.

The person's interval resamples days, not cycles (docs, the methodology page): a day's cycles share a task, a
repository and a state of mind, as the pool's cells share a contributor and a day, and a session may be resumed
across several files; the day is the unit a person's evidence grows by. The pool's values stay as published.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pragmatikos_contract.method import (
    DEFAULT_FAMILY_PATTERN,
    CycleFacts,
    CycleNames,
    Finished,
    Scale,
    add_sums,
    cluster_t_half_width,
    cycle_sums,
    evidence_of,
    finish_group,
    group_label,
    is_judged,
    log_distance,
    raw_axes,
    weighted_median,
)

from pragmatikos_recorder.envelope import COLUMNS

REPORT_VERSION: Final = 1
# The pool document versions this report reads: 2 added each view's scale.
READABLE_DOCUMENTS: Final = frozenset({2})
PAIRING_VIEWS: Final = ("modelCombo", "famCombo", "modelEffortCombo")
VIEWS: Final = ("modelCombo", "famCombo", "modelEffortCombo", "model", "family", "modelEffort")
DEFAULT_RESAMPLES: Final = 200
DEFAULT_SEED: Final = 20260909
LEVEL: Final = 0.95
# The client's placeholders the service stores as empty (docs/api.md).
PLACEHOLDERS: Final = frozenset({"(none)", "(unlisted)", "(unknown)"})
COLUMN: Final = {name: i for i, name in enumerate(COLUMNS)}


class UnreadableDocument(ValueError):
    """The pool document is not one this report can score on."""


@dataclass(frozen=True, slots=True)
class OwnCycle:
    """One of the person's judged cycles, as the service would store it."""

    day: str
    names: CycleNames
    facts: CycleFacts
    latency: float  # latmed; below 0 when the cycle has none
    steps: int


def _name(value: Any) -> str:
    text = str(value).strip().lower()
    return "" if text in PLACEHOLDERS else text


def own_cycles(rows: Sequence[Sequence[Any]]) -> list[OwnCycle]:
    """The judged cycles among the rows a scan would send (envelope COLUMNS order)."""
    cycles = []
    for row in rows:

        def v(name: str, row: Sequence[Any] = row) -> Any:
            return row[COLUMN[name]]

        if not is_judged(int(v("a")), int(v("tedits")), int(v("tpaths"))):
            continue
        pm, bm = _name(v("pm")), _name(v("bm"))
        names = CycleNames(
            model=_name(v("model")),
            effort=_name(v("variant")),
            planner_model=pm,
            planner_effort=_name(v("pv")) if pm else "",
            builder_model=bm,
            builder_effort=_name(v("bv")) if bm else "",
        )
        facts = CycleFacts(
            human_turns=float(v("u")),
            edits=float(v("tedits")),
            edit_errors=float(v("teerr")),
            cost_usd=round(float(v("tcost")), 4),
            shipped=int(v("tship")),
            active_hours=round(float(v("thrs")), 4),
            verified=int(v("tver")),
            intervened=int(v("tabort")),
            ship_status=int(v("tshipe")),
            has_planner=bool(pm),
        )
        cycles.append(OwnCycle(str(v("day")), names, facts, round(float(v("latmed")), 2), int(v("a"))))
    return cycles


@dataclass(frozen=True, slots=True)
class Sums:
    """A set of cycles summed (A2) with its latency bag."""

    sums: dict[str, float]
    bag: list[tuple[float, int]]

    @classmethod
    def of(cls, cycles: Sequence[OwnCycle]) -> Sums:
        total: dict[str, float] = {}
        bag: list[tuple[float, int]] = []
        for cycle in cycles:
            add_sums(total, cycle_sums(cycle.facts))
            if cycle.latency >= 0:
                bag.append((cycle.latency, cycle.steps))
        return cls(total, bag)

    @classmethod
    def merged(cls, parts: Sequence[Sums]) -> Sums:
        total: dict[str, float] = {}
        bag: list[tuple[float, int]] = []
        for part in parts:
            add_sums(total, part.sums)
            bag.extend(part.bag)
        return cls(total, bag)

    def raw(self) -> dict[str, float | None]:
        return raw_axes(self.sums, weighted_median(self.bag))


@dataclass(frozen=True, slots=True)
class PoolView:
    """What the report reads of one view of the published document."""

    name: str
    values: dict[str, float | None]
    scale: Scale
    groups: dict[str, dict[str, Any]]  # ranked, by label
    provisional: dict[str, dict[str, Any]]
    family_pattern: str
    resamples: int
    seed: int


def pool_view(document: Mapping[str, Any], view: str) -> PoolView:
    meta = document.get("meta") or {}
    if meta.get("document_version") not in READABLE_DOCUMENTS:
        raise UnreadableDocument(
            f"the service publishes pool document version {meta.get('document_version')}; this recorder reads "
            f"{', '.join(map(str, sorted(READABLE_DOCUMENTS)))}: update one of the two"
        )
    body = (document.get("views") or {}).get(view)
    if not isinstance(body, dict) or "scale" not in body:
        raise UnreadableDocument(f"the pool document has no view {view!r} with a scale")
    try:
        scale = Scale.from_document(body["scale"])
    except ValueError as error:
        raise UnreadableDocument(str(error)) from error
    return PoolView(
        name=view,
        values={a.name: body["pool"].get(a.name) for a in scale.axes},
        scale=scale,
        groups={g["label"]: g for g in body.get("groups", [])},
        provisional={g["label"]: g for g in body.get("provisional", [])},
        family_pattern=str(meta.get("familyPattern") or DEFAULT_FAMILY_PATTERN),
        resamples=int(meta.get("resamples") or DEFAULT_RESAMPLES),
        seed=int(meta.get("seed") or DEFAULT_SEED),
    )


def _score(point: Sums, pool: PoolView) -> Finished:
    return finish_group(point.raw(), evidence_of(point.sums, pool.scale), pool.values, pool.scale)


@dataclass(frozen=True, slots=True)
class Resampled:
    """The person's resamples of one group: scoreAdj and adjusted axes, one per draw of their days."""

    days: int
    scores: list[float]
    adjusted: list[dict[str, float | None]]


def resample_days(by_day: Sequence[Sums], pool: PoolView, rng: random.Random) -> Resampled:
    """Draw as many of the group's days as it has, with replacement, pool.resamples times (B1 with the day as the
    cluster); each draw is finished against the published pool, which stays as it is."""
    scores, adjusted_values = [], []
    for _ in range(pool.resamples):
        drawn = Sums.merged([by_day[rng.randrange(len(by_day))] for _ in by_day])
        finished = _score(drawn, pool)
        scores.append(finished.score_adj)
        adjusted_values.append(finished.adj)
    return Resampled(len(by_day), scores, adjusted_values)


def _interval(point: float, samples: Sequence[float], clusters: int, clip: bool = True) -> list[float] | None:
    finite = [s for s in samples if math.isfinite(s)]
    if len(finite) < 2:
        return None
    half = cluster_t_half_width(statistics.stdev(finite), clusters, LEVEL)
    if half is None:
        return None
    lo, hi = point - half, point + half
    return [max(0.0, lo), min(100.0, hi)] if clip else [lo, hi]


def _versus_pool(
    finished: Finished, resampled: Resampled, reference: Mapping[str, float | None], pool: PoolView
) -> dict[str, list[str]]:
    """The axes whose log distance from the reference (the pool's same group, else the pool) has a resampled
    interval wholly on one side of zero."""
    better, worse = [], []
    for axis in pool.scale.axes:
        point = log_distance(axis, finished.adj[axis.name], reference.get(axis.name))
        if point is None or not math.isfinite(point):
            continue
        draws = [log_distance(axis, a[axis.name], reference.get(axis.name)) for a in resampled.adjusted]
        interval = _interval(point, [d for d in draws if d is not None], resampled.days, clip=False)
        if interval is None:
            continue
        if interval[0] > 0:
            better.append(axis.name)
        elif interval[1] < 0:
            worse.append(axis.name)
    return {"better": better, "worse": worse}


POOL_ROW_KEYS: Final = ("score", "scoreAdj", "ci", "rank", "rank_worst", "hjudged", "contributors", "flags")


def _pool_row(label: str, pool: PoolView) -> dict[str, Any] | None:
    if label in pool.groups:
        group = pool.groups[label]
        return {"ranked": True, **{key: group.get(key) for key in POOL_ROW_KEYS}}
    if label in pool.provisional:
        return {"ranked": False, "hjudged": pool.provisional[label].get("hjudged")}
    return None


def _group(label: str, cycles: Sequence[OwnCycle], pool: PoolView, rng: random.Random) -> dict[str, Any]:
    point = Sums.of(cycles)
    judged = int(point.sums["hjudged"])
    days = sorted({c.day for c in cycles})
    row: dict[str, Any] = {
        "label": label,
        "ranked": judged >= pool.scale.min_judged,
        "hjudged": judged,
        "hshipped": int(point.sums["hshipped"]),
        "hshipJudged": int(point.sums["hshipJudged"]),
        "days": len(days),
        "toRank": max(0, pool.scale.min_judged - judged),
        "raw": point.raw(),
        "ev": {name: int(n) for name, n in evidence_of(point.sums, pool.scale).items()},
        "pool": _pool_row(label, pool),
    }
    if not row["ranked"]:
        return row | dict.fromkeys(("score", "scoreAdj", "ci", "adj", "tiers", "tiersAdj", "imputed", "versusPool"))
    finished = _score(point, pool)
    by_day = [Sums.of([c for c in cycles if c.day == day]) for day in days]
    resampled = resample_days(by_day, pool, rng)
    published = pool.groups.get(label)
    reference = published["adj"] if published else pool.values
    return row | {
        "score": finished.score,
        "scoreAdj": finished.score_adj,
        "ci": _interval(finished.score_adj, resampled.scores, resampled.days),
        "adj": finished.adj,
        "tiers": finished.tiers,
        "tiersAdj": finished.tiers_adj,
        "imputed": finished.imputed,
        "versusPool": {"against": "group" if published else "pool"}
        | _versus_pool(finished, resampled, reference, pool),
    }


def _main_group(groups: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The person's main group: the ranked one with the most judged cycles (ties by label)."""
    ranked = [g for g in groups if g["ranked"]]
    return min(ranked, key=lambda g: (-g["hjudged"], g["label"])) if ranked else None


def _clearly_above(main: dict[str, Any], pool: PoolView) -> list[dict[str, Any]]:
    """The pool's groups whose interval lies wholly above the main group's: the pool's own interval for it when
    the pool ranks it, else the person's. What switching would buy is the difference of scoreAdj."""
    mine = main["pool"] if main["pool"] and main["pool"].get("ranked") and main["pool"].get("ci") else main
    if not mine.get("ci"):
        return []
    top = mine["ci"][1]
    above = [g for g in pool.groups.values() if g.get("ci") and g["ci"][0] > top and g["label"] != main["label"]]
    above.sort(key=lambda g: (-g["scoreAdj"], g["label"]))
    return [
        {
            "label": g["label"],
            "scoreAdj": g["scoreAdj"],
            "ci": g["ci"],
            "rank": g.get("rank"),
            "rank_worst": g.get("rank_worst"),
            "gain": g["scoreAdj"] - mine["scoreAdj"],
            "against": "pool" if mine is not main else "you",
        }
        for g in above
    ]


def build_report(
    rows: Sequence[Sequence[Any]],
    document: Mapping[str, Any],
    view: str = "modelCombo",
    *,
    source: Mapping[str, Any] | None = None,
    scope: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report's JSON (the recorder's README, "report"): the person's groups in one view, beside the pool's."""
    pool = pool_view(document, view)
    cycles = own_cycles(rows)
    grouped: dict[str, list[OwnCycle]] = defaultdict(list)
    for cycle in cycles:
        label = group_label(view, cycle.names, pool.family_pattern)
        if label is not None:
            grouped[label].append(cycle)
    rng = random.Random(pool.seed)  # same cycles, same document: same intervals
    groups = [_group(label, grouped[label], pool, rng) for label in sorted(grouped)]
    groups.sort(key=lambda g: (not g["ranked"], -(g["scoreAdj"] or 0.0), -g["hjudged"], g["label"]))
    main = _main_group(groups)
    meta = document.get("meta") or {}
    return {
        "reportVersion": REPORT_VERSION,
        "view": view,
        "pool": {
            **(source or {}),
            "generated": meta.get("generated"),
            "snapshot": meta.get("snapshot"),
            "documentVersion": meta.get("document_version"),
            "judged": meta.get("judged"),
            "contributors": meta.get("contributors"),
            "values": pool.values,
            "scale": pool.scale.document(),
        },
        "you": {
            **(scope or {}),
            "cycles": len(rows),
            "judged": len(cycles),
            "inView": sum(len(c) for c in grouped.values()),
            "days": len({c.day for c in cycles}),
        },
        "interval": {"unit": "day", "resamples": pool.resamples, "seed": pool.seed, "level": LEVEL},
        "groups": groups,
        "main": main["label"] if main else None,
        "clearlyAbove": _clearly_above(main, pool) if main else [],
    }
