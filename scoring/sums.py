"""Sums per group (scoring spec A2), raw axes (A3) and the pool (A4).

Group sums are taken over cycles sorted by group, each group a contiguous segment given
by `bounds` (G + 1 offsets). A resample is a matrix of counts (how often each cycle was
drawn), so one function serves the point estimate (counts all 1) and the bootstrap.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.shapes import AXES, SUMS, A, S

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class LatencyBags:
    """The latency bags of a set of groups: pairs (latmed, a) with latmed >= 0.

    `order` indexes the cycles (in their group-sorted order) of every bag, sorted by
    group then latency; `bounds` delimits each group's bag inside it.
    """

    order: IntArray
    values: FloatArray  # latency of order[i]
    weights: IntArray  # a of order[i]
    bounds: IntArray


def weighted_medians(values: FloatArray, weights: IntArray, bounds: IntArray) -> FloatArray:
    """Weighted median of each segment, for each row of `weights` (B x m): A3's rule.

    Sort pairs by value (done by the caller); the median is the first value at which the
    running weight reaches half the segment's total. Integer weights keep it exact.
    NaN for a segment whose total weight is 0.
    """
    weights = np.atleast_2d(weights)
    rows = weights.shape[0]
    running = np.zeros((rows, weights.shape[1] + 1), dtype=np.int64)
    np.cumsum(weights, axis=1, out=running[:, 1:])
    before = running[:, bounds[:-1]]
    total = running[:, bounds[1:]] - before
    # running >= total / 2  <=>  running >= ceil(total / 2) for integers.
    target = before + (total + 1) // 2
    out = np.full((rows, len(bounds) - 1), np.nan)
    if len(values) == 0:
        return out
    for r in range(rows):
        # First position whose running weight reaches the target; position i covers value i-1.
        found = np.searchsorted(running[r], target[r], side="left") - 1
        out[r] = values[np.clip(found, 0, len(values) - 1)]
    out[total == 0] = np.nan
    return out


def group_sums(values: FloatArray, bounds: IntArray, counts: IntArray) -> FloatArray:
    """(B, G, S) sums per group: each row of counts says how often each cycle was drawn."""
    as_float = np.atleast_2d(counts).astype(np.float64)
    out = np.empty((as_float.shape[0], len(bounds) - 1, values.shape[1]))
    for g in range(len(bounds) - 1):
        lo, hi = bounds[g], bounds[g + 1]
        out[:, g, :] = as_float[:, lo:hi] @ values[lo:hi]
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
