"""The summary numbers against small examples worked out by hand."""

import math

import pytest

from lab import stats


def test_it_takes_the_mean_over_every_run_and_resamples_tasks() -> None:
    # Task a: grades 0 and 1; task b: 1. Mean over runs 2/3. Resampled task pairs give
    # aa -> 1/2, ab or ba -> 2/3, bb -> 1 (each pair with probability >= 1/4), so the
    # 2.5% and 97.5% points are exactly 1/2 and 1.
    result = stats.mean_grade([0.0, 1.0, 1.0], ["a", "a", "b"], resamples=400)
    assert result.value == pytest.approx(2 / 3)
    assert result.lo == pytest.approx(0.5)
    assert result.hi == pytest.approx(1.0)


def test_it_gives_no_interval_for_one_task() -> None:
    result = stats.mean_grade([80.0, 90.0], ["t", "t"])
    assert (result.value, result.lo, result.hi) == (85.0, None, None)


def test_it_gives_no_interval_for_fewer_than_three_runs() -> None:
    # Two runs on two tasks: resampling them would give 95.0–95.0 for equal grades, an interval that looks exact.
    assert stats.mean_grade([95.0, 95.0], ["a", "b"]) == stats.Interval(95.0, None, None)
    assert stats.mean_grade([95.0, 95.0, 90.0], ["a", "b", "c"]).lo is not None


def test_it_is_the_same_interval_on_every_call() -> None:
    grades, tasks = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], ["a", "b", "c", "d", "e", "f"]
    assert stats.mean_grade(grades, tasks) == stats.mean_grade(grades, tasks)


def test_it_weighs_each_task_equally_in_the_median() -> None:
    # Task a has three runs (weight 1/3 each), task b one (weight 1): total 2, half 1.
    # Cumulative in value order: 10 -> 1/3, 20 -> 2/3, 30 -> 1 (reaches half), so 30.
    # Unweighted, the lower median of [10, 20, 30, 100] would be 20.
    assert stats.task_weights(["a", "a", "a", "b"]) == pytest.approx([1 / 3, 1 / 3, 1 / 3, 1.0])
    assert stats.task_weighted_median([10.0, 20.0, 30.0, 100.0], ["a", "a", "a", "b"]) == 30.0
    assert stats.task_weighted_spread([10.0, 20.0, 30.0, 100.0], ["a", "a", "a", "b"]) == (20.0, 100.0)


def test_it_takes_the_lower_median_when_the_weight_splits_evenly() -> None:
    assert stats.task_weighted_median([5.0, 1.0], ["x", "y"]) == 1.0
    assert stats.task_weighted_median([], []) is None


def test_it_counts_runs_on_each_whole_grade_and_keeps_the_gaps() -> None:
    assert stats.grade_counts([0.0, 2.5, 3.0, 3.4], 5) == [1, 0, 0, 3, 0, 0]
    assert stats.grade_counts([1.0, 0.0, 1.0], 1) == [1, 2]
    assert stats.grade_counts([], 2) == [0, 0, 0]


def test_it_measures_rank_agreement_with_kendalls_tau() -> None:
    # Six pairs, one discordant (the last two): tau = (5 - 1) / 6.
    result = stats.rank_agreement([1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 40.0, 30.0], resamples=300)
    assert result.tau == pytest.approx(4 / 6)
    assert result.n == 4
    assert result.lo is not None and result.hi is not None
    assert -1.0 <= result.lo <= result.hi <= 1.0


def test_it_needs_three_shared_models_for_a_tau() -> None:
    result = stats.rank_agreement([1.0, 2.0], [2.0, 1.0])
    assert (result.tau, result.lo, result.hi, result.n) == (None, None, None, 2)


def test_it_reads_a_reversed_order_as_minus_one() -> None:
    result = stats.rank_agreement([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], resamples=100)
    assert result.tau is not None and math.isclose(result.tau, -1.0)


def test_it_computes_tau_b_per_resample_as_scipy_does() -> None:
    import numpy as np
    from scipy.stats import kendalltau

    rng = np.random.default_rng(7)
    # Small integer scores, so resamples are full of ties (and some rows are all ties on one side).
    x = rng.integers(0, 4, size=(300, 6)).astype(float)
    y = rng.integers(0, 3, size=(300, 6)).astype(float)
    ours = stats.tau_b_rows(x, y)
    theirs = np.array([kendalltau(a, b).statistic for a, b in zip(x, y, strict=True)])
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.allclose(ours[~np.isnan(ours)], theirs[~np.isnan(theirs)])
