"""Percentile bootstrap of scoreAdj (scoring spec B1).

A resample draws, inside every ranked group, as many cycles as the group has, with
replacement, and recomputes the pool from the resampled groups. A draw is represented
exactly by how often each cycle was drawn (a multinomial count); the group sums are then
counts x contributions, so no resampled rows are ever materialized. Resamples run in
chunks sized to keep memory flat.
"""

import numpy as np
import numpy.typing as npt

from scoring.finishing import finish_adjusted_score
from scoring.judged import Contributions
from scoring.scorecard import GroupedCycles, grouped_cycles, resampled_pool
from scoring.shapes import EVIDENCE_K
from scoring.sums import evidence, group_sums, raw_axes, weighted_medians

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Count cells per chunk (resamples x cycles); a few of these int64/float64 arrays are alive at once.
CHUNK_CELLS = 4_000_000


def view_rng(seed: int, view_index: int) -> np.random.Generator:
    """One independent stream per view, so views can be computed in any order or in parallel."""
    return np.random.default_rng(np.random.SeedSequence([seed, view_index]))


def resample_counts(rng: np.random.Generator, bounds: IntArray, resamples: int) -> IntArray:
    """(resamples, n) counts: for each group, as many draws as it has cycles, uniform with replacement."""
    n = int(bounds[-1])
    dtype = np.uint32 if n < 2**32 else np.int64
    drawn = np.empty((resamples, n), dtype=dtype)
    for g in range(len(bounds) - 1):
        lo, hi = int(bounds[g]), int(bounds[g + 1])
        if hi > lo:
            drawn[:, lo:hi] = rng.integers(lo, hi, size=(resamples, hi - lo), dtype=dtype)
    counts = np.empty((resamples, n), dtype=np.int64)
    for r in range(resamples):
        counts[r] = np.bincount(drawn[r], minlength=n)
    return counts


def resampled_scores(cycles: GroupedCycles, counts: IntArray, evidence_k: int = EVIDENCE_K) -> FloatArray:
    """(B, G) scoreAdj of every group of `cycles` (all ranked) under each row of counts."""
    sums = group_sums(cycles.values, cycles.bounds, counts)
    bags = cycles.bags
    latency = weighted_medians(bags.values, counts[:, bags.order] * bags.weights, bags.bounds)
    raw = raw_axes(sums, latency)
    pool = resampled_pool(sums, cycles, counts)
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
    cycles = grouped_cycles(codes, ranked, contributions)
    groups = int(ranked.sum())
    out = np.empty((resamples, groups))
    if groups == 0 or resamples == 0:
        return out
    n = int(cycles.bounds[-1])
    chunk = max(1, min(resamples, CHUNK_CELLS // max(n, 1)))
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        counts = resample_counts(rng, cycles.bounds, size)
        out[start : start + size] = resampled_scores(cycles, counts, evidence_k)
    return out


def percentile_interval(samples: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The 2.5th and 97.5th percentiles of each column (B1)."""
    lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
    return lo, hi
