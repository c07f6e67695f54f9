"""B1's compare, axis by axis: A's advantage over B on each axis, with its interval from the same resamples.

The advantage is the factor on the axis's own scale (A5's log distance of A's adjusted value with B's in the
pool's place: the ratio for costs and speeds, the odds ratio for rates), as log2, positive when A is better.
Its interval is the score's construction: the difference of the two groups' log values resample by resample
(every group of a view is scored on the same resamples, so they pair), then
advantage +- t(0.975, K - 1) * s * sqrt(K / (K - 1)) with K = min(K_A, K_B), unclipped. An axis is *clear* when
that interval leaves out zero. Resamples in which either side has no value on the axis leave it without an
interval: dropping them would favour the resamples that happened to draw the evidence.

Pure: numpy, no Django.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from scoring.axis_samples import DIRECTION
from scoring.compare import PairedInterval, paired_interval
from scoring.finishing import log_distance
from scoring.shapes import AXES, AXIS_TIER, TIER_NAMES, FloatArray

Side = Literal["A", "B", "even"]


@dataclass(frozen=True)
class AxisDifference(PairedInterval):
    """One axis of a comparison. ``advantage`` is log2 of A's factor over B (positive: A better), None where the
    method has no comparison; ``ci`` its 95% interval, None without paired samples, with a side of one
    contributor, or where a resample lacks the axis; ``contributors`` is K = min(K_A, K_B) when ``ci`` is set."""

    axis: str
    advantage: float | None

    @property
    def better(self) -> Side | None:
        if self.advantage is None:
            return None
        if self.advantage == 0:
            return "even"
        return "A" if self.advantage > 0 else "B"

    @property
    def clear(self) -> bool:
        """The interval leaves out zero: the difference is not one of chance among these contributors."""
        return self.ci is not None and (self.ci[0] > 0 or self.ci[1] < 0)

    @property
    def factor(self) -> float | None:
        """How many times better the better side is (>= 1; inf when one side is infinitely better)."""
        return None if self.advantage is None else 2.0 ** abs(self.advantage)

    @property
    def factor_interval(self) -> tuple[float, float] | None:
        """The interval as factors in favour of the better side, low to high."""
        if self.ci is None or self.advantage is None or self.advantage == 0:
            return None
        lo, hi = self.ci if self.advantage > 0 else (-self.ci[1], -self.ci[0])
        return 2.0**lo, 2.0**hi


def _values(values: Sequence[float | None]) -> FloatArray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def compare_axes_from_samples(
    *,
    adj_a: Sequence[float | None],
    adj_b: Sequence[float | None],
    logs_a: FloatArray | None,
    logs_b: FloatArray | None,
    contributors_a: int,
    contributors_b: int,
) -> tuple[AxisDifference, ...]:
    """Every axis (AXES order) of A against B: the advantage from the adjusted values, its interval from the two
    groups' per-axis samples of the same resamples ((resamples, A) log values, scoring.axis_samples)."""
    if len(adj_a) != len(AXES) or len(adj_b) != len(AXES):
        raise ValueError("adjusted values come one per axis, in AXES order")
    points = log_distance(_values(adj_a)[None, :], _values(adj_b)[None, :])[0]
    paired = logs_a is not None and logs_b is not None and logs_a.shape == logs_b.shape and logs_a.shape[0] > 0
    contributors = min(int(contributors_a), int(contributors_b))
    out = []
    for i, axis in enumerate(AXES):
        point = float(points[i])
        advantage = None if math.isnan(point) else point
        if not paired or advantage is None or logs_a is None or logs_b is None:
            out.append(AxisDifference(axis.name, advantage))
            continue
        diffs = DIRECTION[i] * (logs_a[:, i] - logs_b[:, i])
        share = float((diffs > 0).mean()) if np.isfinite(diffs).all() else None
        ci = None
        if math.isfinite(point) and np.isfinite(diffs).all():
            ci = paired_interval(point, diffs, contributors, clip=None)
        out.append(
            AxisDifference(
                axis.name,
                advantage,
                ci=ci,
                share_a_better=share,
                resamples=len(diffs),
                contributors=contributors if ci is not None else None,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class SwitchSummary:
    """What the axes say about moving from A to B: the clear differences, largest first, and the tiers in which
    no axis differs clearly (every axis with an interval holds zero in it)."""

    clear: tuple[AxisDifference, ...]
    same_tiers: tuple[str, ...]
    with_interval: int  # axes that have an interval at all


def switch_summary(differences: Sequence[AxisDifference]) -> SwitchSummary:
    clear = sorted((d for d in differences if d.clear), key=lambda d: -abs(d.advantage or 0.0))
    same = []
    for tier in TIER_NAMES:
        compared = [d for d in differences if AXIS_TIER[d.axis] == tier and d.advantage is not None]
        if compared and all(d.ci is not None and not d.clear for d in compared):
            same.append(tier)
    with_interval = sum(d.ci is not None for d in differences)
    return SwitchSummary(clear=tuple(clear), same_tiers=tuple(same), with_interval=with_interval)
