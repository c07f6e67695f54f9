"""The lab's summary numbers: pure functions over plain sequences, no Django.

* Mean grade over all runs (never best-of-N), with a 95% percentile interval from resampling
  tasks: a task drawn brings all its runs, so a model run ten times on one task is not ten
  pieces of evidence.
* Task-weighted quantiles: each run weighs 1 / (the model's runs on that task), so every task
  counts equally whatever its run count; the lower weighted quantile is the smallest value
  whose cumulative weight reaches the share asked for.
* Rank agreement: Kendall's tau-b with a percentile interval from resampling the shared models.
"""

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.shapes import INTERVAL_LEVEL

LAB_SEED = 20261130
RESAMPLES = 2000
# The percentile interval's bounds, at the level of every interval on the site.
PERCENTILE_BOUNDS = (50 - 50 * INTERVAL_LEVEL, 50 + 50 * INTERVAL_LEVEL)
# Fewer runs than this and a cell is marked directional.
THIN_RUNS = 5
# Fewer graded runs than this and the mean grade has no interval: resampling two runs gives an interval
# such as 95.0–95.0 that looks exact and says nothing.
INTERVAL_RUNS = 3


@dataclass(frozen=True)
class Interval:
    value: float | None
    lo: float | None
    hi: float | None


@dataclass(frozen=True)
class Agreement:
    tau: float | None
    lo: float | None
    hi: float | None
    n: int


def mean_grade(
    grades: Sequence[float], tasks: Sequence[str], *, resamples: int = RESAMPLES, seed: int = LAB_SEED
) -> Interval:
    """Mean of every run's grade; the interval resamples tasks (needs INTERVAL_RUNS runs and two tasks, else
    none)."""
    if len(grades) != len(tasks):
        raise ValueError("one task per grade")
    if not grades:
        return Interval(None, None, None)
    values = np.asarray(grades, dtype=float)
    mean = float(values.mean())
    names = sorted(set(tasks))
    if len(grades) < INTERVAL_RUNS or len(names) < 2:
        return Interval(mean, None, None)
    index = {name: i for i, name in enumerate(names)}
    codes = np.fromiter((index[t] for t in tasks), dtype=int, count=len(tasks))
    sums = np.bincount(codes, weights=values, minlength=len(names))
    counts = np.bincount(codes, minlength=len(names)).astype(float)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, len(names), size=(resamples, len(names)))
    means = sums[drawn].sum(axis=1) / counts[drawn].sum(axis=1)
    lo, hi = np.percentile(means, PERCENTILE_BOUNDS)
    return Interval(mean, float(lo), float(hi))


def task_weights(tasks: Sequence[str]) -> list[float]:
    """1 / (runs on the same task) for each run."""
    per_task = Counter(tasks)
    return [1.0 / per_task[t] for t in tasks]


def weighted_lower_quantile(values: Sequence[float], weights: Sequence[float], share: float) -> float | None:
    """The smallest value whose cumulative weight (in value order) reaches `share` of the total."""
    if len(values) != len(weights):
        raise ValueError("one weight per value")
    pairs = sorted((v, w) for v, w in zip(values, weights, strict=True) if w > 0)
    if not pairs:
        return None
    total = math.fsum(w for _, w in pairs)
    target = share * total
    running = 0.0
    for value, weight in pairs:
        running += weight
        # A little slack so that thirds and sevenths add up to their share.
        if running >= target - 1e-9 * total:
            return value
    return pairs[-1][0]


def task_weighted_median(values: Sequence[float], tasks: Sequence[str]) -> float | None:
    return weighted_lower_quantile(values, task_weights(tasks), 0.5)


def task_weighted_spread(values: Sequence[float], tasks: Sequence[str]) -> tuple[float | None, float | None]:
    """The lower weighted quartiles (25% and 75%)."""
    weights = task_weights(tasks)
    return weighted_lower_quantile(values, weights, 0.25), weighted_lower_quantile(values, weights, 0.75)


def whole_grade(grade: float, grade_max: int) -> int:
    """A grade's bin: the nearest whole grade (halves round up), within 0..grade_max."""
    return max(0, min(grade_max, math.floor(grade + 0.5)))


def grade_counts(grades: Sequence[float], grade_max: int) -> list[int]:
    """Runs on each whole grade 0..grade_max; a grade no run got counts 0 (a gap, not a missing bin)."""
    counts = [0] * (grade_max + 1)
    for grade in grades:
        counts[whole_grade(grade, grade_max)] += 1
    return counts


def rank_agreement(
    field: Sequence[float], lab: Sequence[float], *, resamples: int = RESAMPLES, seed: int = LAB_SEED
) -> Agreement:
    """Kendall's tau-b of two scores over the same models; resampled models give the interval.

    Needs three models; a resample whose scores are all tied on one side has no tau and is skipped.
    """
    if len(field) != len(lab):
        raise ValueError("one lab score per field score")
    n = len(field)
    if n < 3:
        return Agreement(None, None, None, n)
    x, y = np.asarray(field, dtype=float), np.asarray(lab, dtype=float)
    from scipy.stats import kendalltau  # here, not at import: every process imports the lab as Django starts

    tau = float(kendalltau(x, y).statistic)
    if math.isnan(tau):
        return Agreement(None, None, None, n)
    drawn = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    taus = tau_b_rows(x[drawn], y[drawn])
    taus = taus[~np.isnan(taus)]
    if not taus.size:
        return Agreement(tau, None, None, n)
    lo, hi = np.percentile(taus, PERCENTILE_BOUNDS)
    return Agreement(tau, float(lo), float(hi), n)


def tau_b_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair of two (rows, n) arrays at once (scipy's, without a call per row).

    tau-b = (concordant - discordant) / sqrt((pairs - ties in x) * (pairs - ties in y)); NaN where a row is
    all ties on one side.
    """
    upper = np.triu(np.ones((x.shape[1], x.shape[1]), dtype=bool), k=1)
    sx = np.sign(x[:, :, None] - x[:, None, :])[:, upper]
    sy = np.sign(y[:, :, None] - y[:, None, :])[:, upper]
    pairs = upper.sum()
    untied_x = pairs - (sx == 0).sum(axis=1)
    untied_y = pairs - (sy == 0).sum(axis=1)
    denominator = np.sqrt(untied_x.astype(float) * untied_y)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (sx * sy).sum(axis=1) / denominator, np.nan)
