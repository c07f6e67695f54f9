"""Sums per group (scoring spec A2), raw axes (A3) and the pool (A4).

Arrays of sums carry SUMS last, arrays of axes AXES last; leading dimensions are free
(groups, or resamples x groups). Segments of cycles are given by `bounds` (G + 1
offsets); a resample is a matrix of counts (how often each cycle was drawn).
"""

import math

import numpy as np
import numpy.typing as npt
from pragmatikos_contract import method

from scoring.shapes import AXES, AXIS_NAMES, SUMS, A, FloatArray, IntArray, S


def running_weights(weights: npt.NDArray[np.integer]) -> IntArray:
    """(B, m + 1) running sums of each row of weights, from a leading 0.

    Weights are whole numbers (steps x draws): int64 sums are exact, and an integer
    running sum is several times faster than a floating one.
    """
    weights = np.atleast_2d(weights)
    running = np.empty((weights.shape[0], weights.shape[1] + 1), dtype=np.int64)
    running[:, 0] = 0
    np.cumsum(weights, axis=1, dtype=np.int64, out=running[:, 1:])
    return running


def segment_medians(values: FloatArray, running: IntArray, bounds: IntArray) -> FloatArray:
    """(B, G) weighted medians of the segments bounds[g]:bounds[g+1], given the running weights.

    The first value at which the running weight reaches half the segment's total; in
    whole numbers, reaching total / 2 is reaching ceil(total / 2).
    """
    before = running[:, bounds[:-1]]
    total = running[:, bounds[1:]] - before
    target = before + (total + 1) // 2
    out = np.full(total.shape, np.nan)
    if len(values) == 0:
        return out
    for r in range(running.shape[0]):
        # Running position i covers the pairs before it, so the pair that reaches the target is i - 1.
        found = np.searchsorted(running[r], target[r], side="left") - 1
        out[r] = values[np.clip(found, 0, len(values) - 1)]
    out[total == 0] = np.nan
    return out


def weighted_medians(values: FloatArray, weights: IntArray, bounds: IntArray) -> FloatArray:
    """Weighted median of each segment, for each row of `weights` (B x m): A3's rule.

    Pairs are sorted by value inside each segment (by the caller); the median is the
    first value at which the running weight reaches half the segment's total. Weights are
    whole numbers (steps x draws), so their running sums are exact.
    NaN for a segment whose total weight is 0; zero-weight pairs are never the median.
    """
    return segment_medians(values, running_weights(np.asarray(weights, dtype=np.int64)), bounds)


def group_sums(values: FloatArray, bounds: IntArray, counts: FloatArray) -> FloatArray:
    """(B, G, S) sums per group: each row of counts says how often each cycle was drawn."""
    counts = np.atleast_2d(counts)
    out = np.empty((counts.shape[0], len(bounds) - 1, values.shape[1]))
    for g in range(len(bounds) - 1):
        lo, hi = bounds[g], bounds[g + 1]
        out[:, g, :] = counts[:, lo:hi] @ values[lo:hi]
    return out


def _divide(numerator: FloatArray, divisor: FloatArray, scale: float = 1.0) -> FloatArray:
    """scale * numerator / divisor, NaN where the divisor is 0 (A3: null)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(divisor != 0, scale * numerator / divisor, np.nan)


def raw_axes(sums: FloatArray, latency: FloatArray) -> FloatArray:
    """(..., S) sums and (...) latency medians -> (..., A) raw axes (A3)."""
    s = {name: sums[..., S[name]] for name in SUMS}
    raw = np.empty((*sums.shape[:-1], len(AXES)))
    raw[..., A["shipr"]] = _divide(s["hshipped"], s["hshipJudged"], 100)
    raw[..., A["oneshot"]] = _divide(s["hone"], s["hshipped"], 100)
    raw[..., A["ttss"]] = _divide(s["huShip"], s["hshipped"])
    raw[..., A["hps"]] = _divide(s["hhrsShip"], s["hshipped"])
    raw[..., A["dpss"]] = np.where(s["hcostShip"] > 0, _divide(s["hcostShip"], s["hshippedCosted"]), np.nan)
    raw[..., A["eerrp"]] = _divide(s["hteerr"], s["hedits"], 100)
    raw[..., A["abortp"]] = _divide(s["habort"], s["hjudged"], 100)
    raw[..., A["verp"]] = _divide(s["hver"], s["hjudged"], 100)
    raw[..., A["ept"]] = _divide(s["hedits"], s["hu"])
    raw[..., A["lat"]] = latency
    return raw


def published_raw_axes(sums: FloatArray, latency: FloatArray) -> FloatArray:
    """(G, S) sums and (G,) latency medians -> (G, A) raw axes, each group through the shared method (A3): the
    values the document publishes, as the recorder's report computes them for a person's groups. raw_axes is the
    same rule vectorized, for the resamples."""
    rows = []
    for row, median in zip(sums.tolist(), latency.tolist(), strict=True):
        raw = method.raw_axes(dict(zip(SUMS, row, strict=True)), None if math.isnan(median) else median)
        rows.append([math.nan if raw[name] is None else raw[name] for name in AXIS_NAMES])
    return np.array(rows, dtype=np.float64).reshape(len(sums), len(AXES))


def evidence(sums: FloatArray) -> FloatArray:
    """(..., S) -> (..., A): each axis's evidence n (A3)."""
    return np.stack([sums[..., S[axis.evidence]] for axis in AXES], axis=-1)


def pool_axes(ranked_sums: FloatArray, pool_latency: FloatArray) -> FloatArray:
    """(..., G, S) sums of the ranked groups -> (..., A) pool (A4).

    Every axis from the summed sums, except dpss over the groups with hcostShip > 0 and
    lat, which the caller takes as the median of all ranked bags together.
    """
    totals = ranked_sums.sum(axis=-2)
    pool = raw_axes(totals, pool_latency)
    costed = ranked_sums[..., S["hcostShip"]] > 0
    cost = np.where(costed, ranked_sums[..., S["hcostShip"]], 0.0).sum(axis=-1)
    costed_ships = np.where(costed, ranked_sums[..., S["hshippedCosted"]], 0.0).sum(axis=-1)
    pool[..., A["dpss"]] = np.where(cost > 0, _divide(cost, costed_ships), np.nan)
    return pool
