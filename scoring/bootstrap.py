"""Percentile bootstrap of scoreAdj (scoring spec B1).

A resample draws, inside every ranked group, as many cycles as the group has, uniformly
with replacement, and recomputes the pool from the resampled groups. A resample is kept
as how often each cycle was drawn (its multinomial counts, built from exact uniform
integer draws); group sums are then counts x contributions, and no resampled rows are
ever materialized. Resamples run in chunks so memory stays flat at a million cycles.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.finishing import finish_adjusted_score
from scoring.judged import Contributions
from scoring.scorecard import bounds_of, members, pool_bag_rows, stable_order_by
from scoring.shapes import EVIDENCE_K
from scoring.sums import evidence, group_sums, pool_axes, raw_axes, running_weights, segment_medians

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Count cells per chunk (resamples x cycles); a few float64 arrays of this size are alive at once.
CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class ResampleLayout:
    """The cycles of a view's ranked groups, laid out for resampling.

    Groups are ordered by size (then by group), so groups of one size are one contiguous
    block that a single call of the generator fills. Layout group j is ranked group
    group_order[j] and spans rows bounds[j]:bounds[j+1]. Inside a group the cycles
    without a latency come first, then the rest by latency (ties in canonical order), so
    every latency bag is already sorted.
    """

    group_order: IntArray  # layout group -> index among the ranked groups
    bounds: IntArray
    values: FloatArray  # (n, S) contributions
    latency: FloatArray  # (n,) latmed; < 0 where none
    bag_weights: IntArray  # (n,) a where the cycle has a latency, else 0 (outside every bag)
    bag_keys: IntArray  # (n,) ascending: layout group x (levels + 1) + 1 + level of the latency, 0 without
    levels: FloatArray  # the distinct latencies of all bags, ascending


def resample_layout(codes: IntArray, ranked: BoolArray, contributions: Contributions) -> ResampleLayout:
    member = members(codes, ranked)
    ranked_codes = np.flatnonzero(ranked)
    sizes = np.bincount(codes[member], minlength=len(ranked))[ranked_codes]
    group_order = np.lexsort((ranked_codes, sizes)).astype(np.int64)
    layout_group = np.full(len(ranked), -1, dtype=np.int64)
    layout_group[ranked_codes[group_order]] = np.arange(len(group_order))
    cycle_group = np.where(member, layout_group[np.maximum(codes, 0)], -1)
    without_latency = np.flatnonzero(member & (contributions.latency < 0))
    with_latency = pool_bag_rows(codes, ranked, contributions)
    ordered = np.concatenate((without_latency, with_latency))
    rows = ordered[stable_order_by(cycle_group[ordered], len(group_order))]
    latency = contributions.latency[rows]
    levels = np.unique(latency[latency >= 0])
    level = np.searchsorted(levels, latency)
    has = latency >= 0
    return ResampleLayout(
        group_order=group_order,
        bounds=bounds_of(sizes[group_order]),
        values=np.take(contributions.values, rows, axis=0),
        latency=latency,
        bag_weights=np.where(has, contributions.steps[rows], 0).astype(np.int64),
        bag_keys=cycle_group[rows] * (len(levels) + 1) + np.where(has, level + 1, 0),
        levels=levels.astype(np.float64),
    )


def view_rng(seed: int, view_index: int) -> np.random.Generator:
    """One independent stream per view, so views can be computed in any order or in parallel."""
    return np.random.default_rng(np.random.SeedSequence([seed, view_index]))


@dataclass(frozen=True)
class DrawPlan:
    """How one resample's draws are made: per run of equal-size groups, one generator call."""

    runs: tuple[tuple[int, int, int], ...]  # (first row, end row, group size) per run of equal sizes
    offsets: IntArray  # (n,) first row of each row's group


def draw_plan(bounds: IntArray) -> DrawPlan:
    """Runs of equal-size groups; the layout orders groups by size, so each run is contiguous."""
    sizes = np.diff(bounds)
    runs = []
    start = 0
    while start < len(sizes):
        end = start + int(np.searchsorted(sizes[start:], sizes[start], side="right"))
        runs.append((int(bounds[start]), int(bounds[end]), int(sizes[start])))
        start = end
    return DrawPlan(runs=tuple(runs), offsets=np.repeat(bounds[:-1], sizes).astype(np.int64))


def resample_counts(rng: np.random.Generator, plan: DrawPlan, resamples: int) -> IntArray:
    """(resamples, n) counts: in each group, as many uniform draws with replacement as it has cycles.

    Each run is counted over its own rows only, which keeps the counting in cache.
    """
    n = len(plan.offsets)
    counts = np.empty((resamples, n), dtype=np.int64)
    for lo, hi, size in plan.runs:
        within = rng.integers(0, size, size=(resamples, hi - lo), dtype=np.uint32)
        drawn = within if hi - lo == size else within + (plan.offsets[lo:hi] - lo)
        for r in range(resamples):
            counts[r, lo:hi] = np.bincount(drawn[r], minlength=hi - lo)
    return counts


def pooled_median(layout: ResampleLayout, running: IntArray) -> FloatArray:
    """(B,) weighted median of all bags together, from the running weights of the layout.

    Bisection over the distinct latencies: the median is the smallest level whose weight
    at or below it reaches half the total, which is A3's rule on the pooled pairs. Each
    step reads, per group, the running weight where the group's bag passes the level.
    """
    groups = len(layout.bounds) - 1
    resamples = running.shape[0]
    out = np.full(resamples, np.nan)
    if len(layout.levels) == 0:
        return out
    width = len(layout.levels) + 1
    base = running[:, layout.bounds[:-1]].sum(axis=1)
    total = running[:, -1] - running[:, 0]
    target = (total + 1) // 2
    lo = np.zeros(resamples, dtype=np.int64)
    hi = np.full(resamples, len(layout.levels) - 1, dtype=np.int64)
    group_key = np.arange(groups, dtype=np.int64) * width
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        query = group_key[None, :] + mid[:, None] + 1
        position = np.searchsorted(layout.bag_keys, query.ravel(), side="right").reshape(resamples, groups)
        below = np.take_along_axis(running, position, axis=1).sum(axis=1) - base
        reached = below >= target
        hi = np.where(reached, mid, hi)
        lo = np.where(reached, lo, mid + 1)
    out = layout.levels[lo]
    out[total == 0] = np.nan
    return out


def resampled_scores(layout: ResampleLayout, counts: IntArray, evidence_k: int = EVIDENCE_K) -> FloatArray:
    """(B, G) scoreAdj of the layout's groups (in layout order) under each row of counts."""
    sums = group_sums(layout.values, layout.bounds, counts.astype(np.float64))
    weights = np.multiply(counts, layout.bag_weights, out=counts)  # counts are not needed after this
    running = running_weights(weights)
    latency = segment_medians(layout.latency, running, layout.bounds)
    raw = raw_axes(sums, latency)
    pool = pool_axes(sums, pooled_median(layout, running))
    return finish_adjusted_score(raw, evidence(sums), pool[:, None, :], evidence_k)


def bootstrap_scores(
    codes: IntArray,
    ranked: BoolArray,
    contributions: Contributions,
    *,
    resamples: int,
    rng: np.random.Generator,
    evidence_k: int = EVIDENCE_K,
) -> FloatArray:
    """(resamples, R) scoreAdj samples of the R ranked groups of one view, in group order."""
    groups = int(ranked.sum())
    out = np.empty((resamples, groups))
    if groups == 0 or resamples == 0:
        return out
    layout = resample_layout(codes, ranked, contributions)
    plan = draw_plan(layout.bounds)
    n = int(layout.bounds[-1])
    chunk = max(1, min(resamples, CHUNK_CELLS // max(n, 1)))
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        counts = resample_counts(rng, plan, size)
        out[start : start + size, layout.group_order] = resampled_scores(layout, counts, evidence_k)
    return out


def percentile_interval(samples: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The 2.5th and 97.5th percentiles of each column (B1)."""
    lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
    return lo, hi
