"""The engine's entry point: score_pool scores every view of the cycles in scope into the pool.json document and
keeps the bootstrap samples its intervals come from."""

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from pragmatikos_contract.method import Scale

from scoring.axis_samples import encode
from scoring.bootstrap import bootstrap_scores, cluster_t_interval, view_rng
from scoring.caveats import (
    contributorship,
    flags,
    interval_ranks,
    interval_worst_ranks,
    point_ranks,
    point_worst_ranks,
)
from scoring.config import ScoringConfig as ScoringConfig  # re-exported: callers name it with the document
from scoring.groupings import Grouping, view_groupings
from scoring.judged import Contributions, JudgedCycles, contributions, judged_in_scope
from scoring.scorecard import PointScorecard, point_scorecard
from scoring.shapes import (
    AXIS_NAMES,
    DOCUMENT_VERSION,
    INTERVALS_KEY,
    INTERVALS_PENDING,
    SCHEMA,
    SPAN,
    TIER_NAMES,
    VIEWS,
    WEIGHTS_LABEL,
    DocumentMeta,
    FloatArray,
    GroupRow,
    IntArray,
    PoolDocument,
    ProvisionalRow,
    S,
    View,
    ViewMeta,
    ViewName,
)

# Views are independent (one random stream each): two run at once on the two cores.
VIEW_WORKERS = 2


@dataclass(frozen=True)
class Prepared:
    """The judged cycles in scope, canonically ordered, with what every stage reads."""

    judged: JudgedCycles
    contributions: Contributions
    groupings: dict[ViewName, Grouping]
    # Each view's point scorecard once made: the views and the rank stability's pass both start from it.
    cards: dict[tuple[str, int, int], PointScorecard] = field(default_factory=dict, compare=False, repr=False)

    def card(self, view: ViewName | str, config: "ScoringConfig") -> PointScorecard:
        """The view's point scorecard under config's threshold and k (made on first use; views never share one,
        so views scored in parallel threads never make the same card twice)."""
        key = (str(view), config.min_judged, config.evidence_k)
        if key not in self.cards:
            grouping = self.groupings[view]  # type: ignore[index]
            self.cards[key] = point_scorecard(grouping, self.contributions, config.min_judged, config.evidence_k)
        return self.cards[key]


def prepare(cycles: pd.DataFrame, config: ScoringConfig, since: date | None, until: date | None) -> Prepared:
    judged = judged_in_scope(cycles, since, until)
    return Prepared(judged, contributions(judged), view_groupings(judged, config.family_pattern))


@dataclass(frozen=True)
class ViewResult:
    scorecard: PointScorecard
    samples: FloatArray | None  # (resamples, ranked groups) scoreAdj, None without bootstrap
    axis_codes: npt.NDArray[np.int16] | None = None  # (resamples, ranked groups, axes), when kept


def score_view(prepared: Prepared, view: ViewName, config: ScoringConfig, *, keep_axes: bool = False) -> ViewResult:
    grouping = prepared.groupings[view]
    card = prepared.card(view, config)
    samples = axis_codes = None
    if config.resamples > 0:
        drawn = bootstrap_scores(
            grouping.codes,
            card.ranked,
            prepared.contributions,
            prepared.judged.contributor_code,
            resamples=config.resamples,
            rng=view_rng(config.seed, VIEWS.index(view)),
            evidence_k=config.evidence_k,
            keep_axes=keep_axes,
        )
        samples, axis_codes = drawn.samples, drawn.axis_codes
    return ViewResult(card, samples, axis_codes)


def _number(x: float) -> float | None:
    """A JSON number, or None for null (NaN) and for infinities."""
    value = float(x)
    return value if math.isfinite(value) else None


def _axes(row: FloatArray) -> dict[str, float | None]:
    return {name: _number(row[i]) for i, name in enumerate(AXIS_NAMES)}


def _interval(interval: tuple[FloatArray, FloatArray] | None, i: int) -> list[float] | None:
    if interval is None:
        return None
    lo, hi = _number(interval[0][i]), _number(interval[1][i])
    return None if lo is None or hi is None else [lo, hi]


def _evidence(row: FloatArray) -> dict[str, int]:
    return {name: int(row[i]) for i, name in enumerate(AXIS_NAMES)}


def _tiers(row: FloatArray) -> dict[str, float]:
    return {name: float(row[i]) for i, name in enumerate(TIER_NAMES)}


def _counts_meta(judged: JudgedCycles, rows: IntArray | None = None) -> dict[str, Any]:
    """Counts over the judged cycles (or those at `rows`): B2's meta."""

    def total(values: npt.NDArray[Any]) -> int:
        return int((values if rows is None else values[rows]).sum())

    tally = judged.tallies
    cycles = tally.cycles if rows is None else tally.cycles[rows]
    who = judged.contributor_code if rows is None else judged.contributor_code[rows]
    days = judged.day if rows is None else judged.day[rows]
    return {
        "judged": int(cycles.sum()),
        "shipped": total(tally.shipped),
        "shipJudged": total(tally.ship_judged),
        "pending": total(tally.pending),
        "unshippable": total(tally.unshippable),
        "contributors": int(np.count_nonzero(np.bincount(who, weights=cycles))) if len(who) else 0,
        "start": str(days.min()) if len(days) else None,
        "end": str(days.max()) if len(days) else None,
    }


def _view_meta(judged: JudgedCycles, rows: IntArray, config: ScoringConfig) -> ViewMeta:
    counts = _counts_meta(judged, rows)
    return ViewMeta(
        judged=counts["judged"],
        shipped=counts["shipped"],
        shipJudged=counts["shipJudged"],
        pending=counts["pending"],
        unshippable=counts["unshippable"],
        contributors=counts["contributors"],
        start=counts["start"],
        end=counts["end"],
        minJudged=config.min_judged,
        evidenceK=config.evidence_k,
        weights=WEIGHTS_LABEL,
    )


def view_document(prepared: Prepared, result: ViewResult, config: ScoringConfig) -> View:
    """One view shaped as the published pool.json view, plus intervals, ranks and caveats."""
    card = result.scorecard
    grouping = card.grouping
    judged = prepared.judged
    codes = grouping.codes
    groups = len(grouping.labels)
    member = codes >= 0
    who = contributorship(codes, judged.contributor_code, groups, judged.contributors, judged.tallies.cycles)
    first_day = np.full(groups, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first_day, codes[member], judged.day[member].astype(np.int64))
    ranked_ids = np.flatnonzero(card.ranked)
    fin = card.finished
    contributors = who.contributors[ranked_ids]
    interval: tuple[FloatArray, FloatArray] | None = None
    if result.samples is not None and len(ranked_ids):
        interval = cluster_t_interval(fin.score_adj, result.samples, contributors)
        ranks, worst = interval_ranks(*interval), interval_worst_ranks(*interval)
    else:
        ranks, worst = point_ranks(fin.score_adj), point_worst_ranks(fin.score_adj)
    # One contributor: no interval, and no rank claimed beyond the whole range (B1).
    alone = contributors < 2
    ranks, worst = np.where(alone, 1, ranks), np.where(alone, len(ranked_ids), worst)
    # Ids number the ranked groups by first appearance (then label), as the published card does.
    appearance = sorted(
        range(len(ranked_ids)), key=lambda i: (first_day[ranked_ids[i]], grouping.labels[ranked_ids[i]])
    )
    group_id = {i: f"g{n}" for n, i in enumerate(appearance)}
    rows: list[GroupRow] = []
    for i, g in enumerate(ranked_ids):
        sums = card.sums[g]
        row: GroupRow = {
            "id": group_id[i],
            "label": grouping.labels[g],
            "hue": grouping.hues[g],
            "hjudged": int(sums[S["hjudged"]]),
            "hshipped": int(sums[S["hshipped"]]),
            "hshipJudged": int(sums[S["hshipJudged"]]),
            "raw": _axes(card.raw[g]),
            "adj": _axes(fin.adj[i]),
            "ev": _evidence(card.evidence[g]),
            "tiers": _tiers(fin.tiers[i]),
            "tiersAdj": _tiers(fin.tiers_adj[i]),
            "imputed": [name for t, name in enumerate(TIER_NAMES) if fin.imputed[i, t]],
            "score": float(fin.score[i]),
            "scoreAdj": float(fin.score_adj[i]),
            "ci": _interval(interval, i),
            "rank": int(ranks[i]),
            "rank_worst": int(worst[i]),
            "contributors": int(who.contributors[g]),
            "top_share": float(who.top_share[g]),
            "flags": flags(int(sums[S["hjudged"]]), int(who.contributors[g]), float(who.top_share[g])),
        }
        if grouping.planners is not None and grouping.builders is not None:
            row["planner"] = grouping.planners[g]
            row["builder"] = grouping.builders[g]
        rows.append(row)
    rows.sort(key=lambda r: (-r["scoreAdj"], r["label"]))
    provisional = [
        ProvisionalRow(label=grouping.labels[g], hjudged=int(card.sums[g, S["hjudged"]]), raw=_axes(card.raw[g]))
        for g in np.flatnonzero(~card.ranked)
    ]
    provisional.sort(key=lambda r: (-r["hjudged"], r["label"]))
    return View(
        groups=rows,
        pool=_axes(card.pool),
        span=SPAN,
        provisional=provisional,
        meta=_view_meta(judged, np.flatnonzero(member), config),
        scale=Scale(evidence_k=config.evidence_k, min_judged=config.min_judged, span=SPAN).document(),
    )


def _score_views(
    prepared: Prepared, config: ScoringConfig, views: tuple[ViewName, ...], keep_axes: bool = False
) -> dict[ViewName, ViewResult]:
    if config.resamples == 0 or len(views) == 1:
        return {view: score_view(prepared, view, config, keep_axes=keep_axes) for view in views}
    with ThreadPoolExecutor(max_workers=VIEW_WORKERS) as pool:
        futures = {view: pool.submit(score_view, prepared, view, config, keep_axes=keep_axes) for view in views}
        return {view: future.result() for view, future in futures.items()}


def assemble_document(
    prepared: Prepared,
    results: dict[ViewName, ViewResult],
    config: ScoringConfig,
    *,
    since: date | None,
    until: date | None,
    generated: str | None,
) -> PoolDocument:
    """The pool.json-shaped document of views already scored: meta plus every view."""
    counts = _counts_meta(prepared.judged)
    meta: DocumentMeta = {
        "generated": generated or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "start": counts["start"],
        "end": counts["end"],
        "judged": counts["judged"],
        "shipped": counts["shipped"],
        "shipJudged": counts["shipJudged"],
        "pending": counts["pending"],
        # The published scorecard's name for the unshippable count; both keys are kept.
        "impossible": counts["unshippable"],
        "unshippable": counts["unshippable"],
        "contributors": counts["contributors"],
        "schema": SCHEMA,
        "document_version": DOCUMENT_VERSION,
        "minJudged": config.min_judged,
        "evidenceK": config.evidence_k,
        "weights": WEIGHTS_LABEL,
        "resamples": config.resamples,
        "seed": config.seed,
        "since": since.isoformat() if since else None,
        "until": until.isoformat() if until else None,
        "familyPattern": config.family_pattern,
    }
    return PoolDocument(meta=meta, views={view: view_document(prepared, results[view], config) for view in VIEWS})


# {view: {label: [scoreAdj in resample 0, 1, ...]}}, the ranked groups of each view; {} for a view without samples.
Samples = dict[str, dict[str, list[float]]]
# {view: {label: the group's per-axis samples as scoring.axis_samples text}}; {} unless asked for.
AxisSamples = dict[str, dict[str, str]]


@dataclass(frozen=True)
class ScoredPool:
    """The pool.json-shaped document, the bootstrap samples its intervals come from and, when asked for, the
    same resamples' adjusted axis values (for comparisons axis by axis)."""

    document: PoolDocument
    samples: Samples
    axis_samples: AxisSamples = field(default_factory=dict)


def _axis_samples(results: dict[ViewName, ViewResult]) -> AxisSamples:
    kept: AxisSamples = {}
    for view in VIEWS:
        result = results[view]
        if result.axis_codes is None:
            continue
        grouping = result.scorecard.grouping
        labels = [grouping.labels[g] for g in np.flatnonzero(result.scorecard.ranked)]
        kept[view] = {label: encode(result.axis_codes[:, i, :]) for i, label in enumerate(labels)}
    return kept


def _samples(results: dict[ViewName, ViewResult]) -> Samples:
    samples: Samples = {}
    for view in VIEWS:
        result = results[view]
        if result.samples is None:
            samples[view] = {}
            continue
        grouping = result.scorecard.grouping
        labels = [grouping.labels[g] for g in np.flatnonzero(result.scorecard.ranked)]
        samples[view] = {label: result.samples[:, i].tolist() for i, label in enumerate(labels)}
    return samples


def score_pool(
    cycles: pd.DataFrame,
    config: ScoringConfig = ScoringConfig(),  # frozen, so one shared default is safe
    *,
    since: date | None = None,
    until: date | None = None,
    generated: str | None = None,
    prepared: Prepared | None = None,
    keep_axes: bool = False,
) -> ScoredPool:
    """Score all six views of the cycles in scope: the document shaped as pool.json and the samples it drew.

    The reference scorer: the service scores cells (scoring.cells.score_cells), and the tests and benchmarks
    hold that to this, on the same cycles.

    `cycles` holds one row per stored cycle (judged or not) of non-retracted contributors, with the columns
    scoring.CYCLE_COLUMNS. The bootstrap runs once: the samples are the draws the document's intervals come from.
    A caller that prepared the same cycles (for enrichment too) may pass `prepared` to spare preparing them again.
    keep_axes also keeps every resample's adjusted axis values (ScoredPool.axis_samples), for the comparison page.
    """
    return score_prepared(
        prepared or prepare(cycles, config, since, until),
        config,
        since=since,
        until=until,
        generated=generated,
        keep_axes=keep_axes,
    )


def score_points(
    prepared: Prepared,
    config: ScoringConfig,
    *,
    since: date | None = None,
    until: date | None = None,
    generated: str | None = None,
) -> PoolDocument:
    """The document without the resampling: the points, counts and order of score_prepared's, each ci null, rank
    and rank_worst the point places, and meta["intervals"] INTERVALS_PENDING, so that no reader takes a place for
    a confident one. What the recompute publishes first, seconds before the whole document; the point
    scorecards it makes stay in `prepared` for score_prepared to reuse."""
    # The views' sorts and sums release the GIL: made side by side, as score_prepared's views are.
    with ThreadPoolExecutor(max_workers=VIEW_WORKERS) as pool:
        cards = {view: pool.submit(prepared.card, view, config) for view in VIEWS}
        results = {view: ViewResult(card.result(), None) for view, card in cards.items()}
    document = assemble_document(prepared, results, config, since=since, until=until, generated=generated)
    document["meta"][INTERVALS_KEY] = INTERVALS_PENDING
    return document


def score_prepared(
    prepared: Prepared,
    config: ScoringConfig,
    *,
    since: date | None = None,
    until: date | None = None,
    generated: str | None = None,
    keep_axes: bool = False,
) -> ScoredPool:
    """score_pool on rows already prepared: from cycles (prepare) or from cells (scoring.cells.prepare_cells)."""
    results = _score_views(prepared, config, VIEWS, keep_axes)
    document = assemble_document(prepared, results, config, since=since, until=until, generated=generated)
    return ScoredPool(document=document, samples=_samples(results), axis_samples=_axis_samples(results))
