"""Finishing (scoring spec A5): raw axes, evidence and the pool -> adjusted values, tiers, scores.

The published numbers (finish) are finished group by group through the shared method
(pragmatikos_contract.method.finish_group), the one the recorder's report scores a person's groups with. The
bootstrap finishes thousands of resamples at once, so the functions below keep A5 vectorized: arrays whose last
dimension is the axes (AXES order) or the tiers (TIERS order), leading dimensions free (groups, or resamples x
groups). tests/scoring/test_shared_method.py holds the two equal. Null is NaN.
"""

import math
from dataclasses import dataclass

import numpy as np
from pragmatikos_contract.method import Scale, finish_group

from scoring.shapes import AXES, AXIS_NAMES, EVIDENCE_K, IMPUTED_TIER, SPAN, TIER_NAMES, TIERS, A, BoolArray, FloatArray

_TIER_WEIGHTS = np.array([tier.weight for tier in TIERS], dtype=np.float64)
_TIER_AXES = [[A[name] for name in tier.axes] for tier in TIERS]


@dataclass(frozen=True)
class Finished:
    """A5's outputs; shapes (..., A) for adj, (..., T) for tiers, (...) for scores."""

    adj: FloatArray
    tiers: FloatArray
    tiers_adj: FloatArray
    imputed: BoolArray  # (..., T): the tier had no position from the raw values
    score: FloatArray
    score_adj: FloatArray


def adjusted(raw: FloatArray, evidence: FloatArray, pool: FloatArray, k: int = EVIDENCE_K) -> FloatArray:
    """adj = (n*raw + k*pool) / (n + k); NaN where raw or pool is NaN."""
    return (evidence * raw + k * pool) / (evidence + k)


def _ratio_distance(v: FloatArray, p: FloatArray, higher: bool) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log2(v / p) if higher else np.log2(p / v)
    return np.where((v > 0) & (p > 0), r, np.nan)


def _odds_distance(v: FloatArray, p: FloatArray, higher: bool) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log2((v / (100 - v)) / (p / (100 - p)))
    r = np.where(v <= 0, -np.inf, r)
    r = np.where(v >= 100, np.inf, r)
    if not higher:
        r = -r
    r = np.where(v == p, 0.0, r)
    valid = (p > 0) & (p < 100) & ~np.isnan(v)
    return np.where(valid, r, np.nan)


def _err_distance(v: FloatArray, p: FloatArray) -> FloatArray:
    """Lower is better: log2(p/v); v <= 0 (no errors at all) is infinitely better."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log2(p / v)
    r = np.where(v <= 0, np.inf, r)
    r = np.where(v == p, 0.0, r)
    valid = (p > 0) & ~np.isnan(v)
    return np.where(valid, r, np.nan)


def log_distance(values: FloatArray, pool: FloatArray) -> FloatArray:
    """r per axis (base 2, better is positive); NaN where the spec says null, +-inf kept."""
    values, pool = np.broadcast_arrays(values, pool)
    out = np.full(values.shape, np.nan)
    for i, axis in enumerate(AXES):
        v, p = values[..., i], pool[..., i]
        higher = axis.better == "higher"
        if axis.kind == "ratio":
            out[..., i] = _ratio_distance(v, p, higher)
        elif axis.kind == "odds":
            out[..., i] = _odds_distance(v, p, higher)
        else:
            out[..., i] = _err_distance(v, p)
    return out


def positions(distance: FloatArray, span: float = SPAN) -> FloatArray:
    """(clamp(r / span, -1, 1) + 1) / 2: the pool at 0.5, span better or more at 1."""
    return (np.clip(distance / span, -1.0, 1.0) + 1.0) / 2.0


def tiers(position: FloatArray) -> tuple[FloatArray, BoolArray]:
    """100 x the mean of each tier's non-null positions; a tier with none is imputed at 50."""
    shape = (*position.shape[:-1], len(TIERS))
    values = np.empty(shape)
    imputed = np.zeros(shape, dtype=np.bool_)
    for t, axis_indexes in enumerate(_TIER_AXES):
        block = position[..., axis_indexes]
        present = ~np.isnan(block)
        n = present.sum(axis=-1)
        total = np.where(present, block, 0.0).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            values[..., t] = np.where(n > 0, 100 * total / n, IMPUTED_TIER)
        imputed[..., t] = n == 0
    return values, imputed


def score(tier_values: FloatArray) -> FloatArray:
    """The weighted mean of the tiers: sum(weight x tier) / 100."""
    return np.asarray((tier_values * _TIER_WEIGHTS).sum(axis=-1) / 100, dtype=np.float64)


def finish(raw: FloatArray, evidence: FloatArray, pool: FloatArray, k: int = EVIDENCE_K) -> Finished:
    """All of A5 at once, each group through the shared method. `pool` broadcasts against `raw` (give it a group
    dimension of 1)."""
    raw, evidence, pool = np.broadcast_arrays(raw, evidence, pool)
    shape = raw.shape[:-1]
    scale = Scale(evidence_k=k)
    groups = [
        finish_group(_values(r), dict(zip(AXIS_NAMES, n.tolist(), strict=True)), _values(p), scale)
        for r, n, p in zip(
            raw.reshape(-1, len(AXES)), evidence.reshape(-1, len(AXES)), pool.reshape(-1, len(AXES)), strict=True
        )
    ]

    def stacked(rows: list[list[float]], width: int) -> FloatArray:
        return np.array(rows, dtype=np.float64).reshape(*shape, width)

    return Finished(
        adj=stacked([[_nan(g.adj[name]) for name in AXIS_NAMES] for g in groups], len(AXES)),
        tiers=stacked([[g.tiers[name] for name in TIER_NAMES] for g in groups], len(TIERS)),
        tiers_adj=stacked([[g.tiers_adj[name] for name in TIER_NAMES] for g in groups], len(TIERS)),
        imputed=np.array([[name in g.imputed for name in TIER_NAMES] for g in groups], dtype=np.bool_).reshape(
            *shape, len(TIERS)
        ),
        score=np.array([g.score for g in groups], dtype=np.float64).reshape(shape),
        score_adj=np.array([g.score_adj for g in groups], dtype=np.float64).reshape(shape),
    )


def _values(row: FloatArray) -> dict[str, float | None]:
    """An engine row of axes as the shared method takes it: None for NaN."""
    return {name: None if math.isnan(x) else x for name, x in zip(AXIS_NAMES, row.tolist(), strict=True)}


def _nan(value: float | None) -> float:
    return math.nan if value is None else value


def finish_adjusted_score(raw: FloatArray, evidence: FloatArray, pool: FloatArray, k: int = EVIDENCE_K) -> FloatArray:
    """Only scoreAdj: what the bootstrap needs per resample."""
    return score_of_adjusted(adjusted(raw, evidence, pool, k), pool)


def score_of_adjusted(adj: FloatArray, pool: FloatArray) -> FloatArray:
    """scoreAdj from adjusted values already computed (the bootstrap keeps them for per-axis comparisons)."""
    tier_adj, _ = tiers(positions(log_distance(adj, pool)))
    return score(tier_adj)
