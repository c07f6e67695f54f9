"""One view's scorecard: sums per group, raw axes, the pool and finishing (scoring spec A2-A5).

The point estimate sums straight from each row's group code; the bootstrap lays the
rows out its own way (scoring.bootstrap).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scoring.finishing import Finished, finish
from scoring.groupings import Grouping
from scoring.shapes import EVIDENCE_K, MIN_JUDGED, SUMS, BoolArray, FloatArray, IntArray, S
from scoring.sums import evidence, pool_axes, published_raw_axes, weighted_medians

if TYPE_CHECKING:  # annotations only: the engine's rows (and pandas) load with the engine
    from scoring.judged import Contributions


def stable_order_by(codes: IntArray, groups: int) -> IntArray:
    """Stable argsort of codes in [0, groups): numpy's radix sort on 16 bits, in two passes up to 32 bits."""
    # copy=False: argsort's indices are 64 bits already where numpy runs, and a copy of them is pair-sized.
    if groups <= 2**16:
        return np.argsort(codes.astype(np.uint16), kind="stable").astype(np.int64, copy=False)
    if groups > 2**32:
        return np.argsort(codes, kind="stable").astype(np.int64, copy=False)
    low = np.argsort((codes & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((codes[low] >> 16).astype(np.uint16), kind="stable")].astype(np.int64, copy=False)


def bounds_of(sizes: IntArray) -> IntArray:
    return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


def members(codes: IntArray, keep: BoolArray) -> BoolArray:
    """The rows whose group is kept (a code of -1 is outside the view)."""
    member = codes >= 0
    member[member] = keep[codes[member]]
    return member


def group_bags(codes: IntArray, keep: BoolArray, contributions: Contributions) -> tuple[IntArray, IntArray]:
    """The kept groups' latency bags: pair positions sorted by group then latency, and each bag's bounds.

    The pairs come in latency order (sorted once for all views); a stable sort by group
    keeps that order inside each bag.
    """
    pairs = pool_bag_pairs(codes, keep, contributions)
    pair_codes = codes[contributions.pair_row[pairs]]
    order = stable_order_by(pair_codes, len(keep))
    sizes = np.bincount(pair_codes, minlength=len(keep))[keep]
    del pair_codes  # pair-sized: gone before the bag is
    return pairs[order], bounds_of(sizes)


def pool_bag_pairs(codes: IntArray, keep: BoolArray, contributions: Contributions) -> IntArray:
    """All kept groups' latency pairs together, in latency order: the pool's bag (A4)."""
    return np.flatnonzero(members(codes, keep)[contributions.pair_row])


@dataclass(frozen=True)
class PointScorecard:
    """Every group of a view at its point estimate; finishing is for the ranked groups only."""

    grouping: Grouping
    sums: FloatArray  # (G, S)
    raw: FloatArray  # (G, A)
    evidence: FloatArray  # (G, A)
    ranked: BoolArray  # (G,)
    pool: FloatArray  # (A,)
    finished: Finished  # over the ranked groups, in group order


def point_scorecard(
    grouping: Grouping, contributions: Contributions, min_judged: int = MIN_JUDGED, evidence_k: int = EVIDENCE_K
) -> PointScorecard:
    codes = grouping.codes
    groups = len(grouping.labels)
    member = codes >= 0
    in_view = codes[member]
    sums = np.empty((groups, len(SUMS)))
    for s in range(len(SUMS)):
        sums[:, s] = np.bincount(in_view, weights=contributions.columns[s][member], minlength=groups)
    everyone = np.ones(groups, dtype=np.bool_)
    bag, bag_bounds = group_bags(codes, everyone, contributions)
    latency = weighted_medians(contributions.pair_latency[bag], contributions.pair_steps[bag], bag_bounds)[0]
    raw = published_raw_axes(sums, latency)
    ev = evidence(sums)
    ranked = sums[:, S["hjudged"]] >= min_judged
    pool_pairs = pool_bag_pairs(codes, ranked, contributions)
    pool_latency = weighted_medians(
        contributions.pair_latency[pool_pairs], contributions.pair_steps[pool_pairs], np.array([0, len(pool_pairs)])
    )[:, 0]
    pool = pool_axes(sums[None, ranked, :], pool_latency)[0]
    finished = finish(raw[ranked], ev[ranked], pool[None, :], evidence_k)
    return PointScorecard(grouping, sums, raw, ev, ranked, pool, finished)
