"""Tie-aware ranks (scoring spec B1) and the caveats on every row (B2)."""

from dataclasses import dataclass

import numpy as np

from scoring.shapes import DOMINATED_SHARE, THIN_BELOW, Flag, FloatArray, IntArray


def _open(lo: FloatArray, hi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """A group without an interval (one contributor) spans everything: it is surely above or below nobody."""
    return np.where(np.isnan(lo), -np.inf, lo), np.where(np.isnan(hi), np.inf, hi)


def interval_ranks(lo: FloatArray, hi: FloatArray) -> IntArray:
    """B1 `rank`: 1 + the number of groups whose interval lower bound is above this group's upper bound."""
    lo, hi = _open(lo, hi)
    return np.asarray(1 + (lo[None, :] > hi[:, None]).sum(axis=1).astype(np.int64), dtype=np.int64)


def interval_worst_ranks(lo: FloatArray, hi: FloatArray) -> IntArray:
    """B1 `rank_worst`: G - the number of groups whose interval upper bound is below this group's lower bound."""
    lo, hi = _open(lo, hi)
    return np.asarray(len(lo) - (hi[None, :] < lo[:, None]).sum(axis=1).astype(np.int64), dtype=np.int64)


def point_ranks(scores: FloatArray) -> IntArray:
    """Without intervals: 1 + the number of groups with a strictly higher score (equal scores tie)."""
    return np.asarray(1 + (scores[None, :] > scores[:, None]).sum(axis=1).astype(np.int64), dtype=np.int64)


def point_worst_ranks(scores: FloatArray) -> IntArray:
    """Without intervals: G - the number of groups with a strictly lower score."""
    return np.asarray(len(scores) - (scores[None, :] < scores[:, None]).sum(axis=1).astype(np.int64), dtype=np.int64)


@dataclass(frozen=True)
class Contributorship:
    contributors: IntArray  # distinct contributors per group
    top_share: FloatArray  # the largest contributor's share of the group's cycles, 0..1


def contributorship(
    codes: IntArray, contributor_code: IntArray, groups: int, contributors: int, cycles: IntArray | None = None
) -> Contributorship:
    """Per group (row codes, -1 outside the view), how many contributors and how concentrated.

    `cycles`: how many cycles each row stands for (one each when None)."""
    member = codes >= 0
    group, who = codes[member], contributor_code[member]
    weight = None if cycles is None else cycles[member]
    sizes = np.bincount(group, weights=weight, minlength=groups)
    width = max(contributors, 1)
    if groups * width <= 20_000_000:
        per_pair = np.bincount(group * width + who, weights=weight, minlength=groups * width).reshape(groups, width)
        distinct = (per_pair > 0).sum(axis=1).astype(np.int64)
        largest = per_pair.max(axis=1, initial=0)
    else:
        pairs, inverse = np.unique(group * width + who, return_inverse=True)
        pair_counts = np.bincount(inverse.ravel(), weights=weight, minlength=len(pairs))
        present = pair_counts > 0
        distinct = np.bincount(pairs[present] // width, minlength=groups).astype(np.int64)
        largest = np.zeros(groups, dtype=pair_counts.dtype)
        np.maximum.at(largest, pairs // width, pair_counts)
    top_share = np.where(sizes > 0, largest / np.maximum(sizes, 1), 0.0)
    return Contributorship(contributors=distinct, top_share=top_share)


def flags(hjudged: int, contributors: int, top_share: float) -> list[Flag]:
    """B2: thin (< 30 judged), one-contributor, dominated (largest contributor >= 80%)."""
    out: list[Flag] = []
    if hjudged < THIN_BELOW:
        out.append("thin")
    if contributors == 1:
        out.append("one-contributor")
    if top_share >= DOMINATED_SHARE:
        out.append("dominated")
    return out
