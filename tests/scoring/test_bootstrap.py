"""B1: the bootstrap equals scoring materialized resamples, is reproducible, and ranks tie-aware."""

import numpy as np
import pytest

from scoring.bootstrap import (
    bootstrap_scores,
    draw_plan,
    resample_counts,
    resample_layout,
    resampled_scores,
    view_rng,
)
from scoring.caveats import contributorship, flags, interval_ranks, point_ranks
from scoring.judged import Contributions, contributions, judged_in_scope
from scoring.scorecard import point_scorecard
from scoring.shapes import DEFAULT_FAMILY_PATTERN, VIEWS
from scoring.views import Grouping, view_groupings
from tests.scoring.synthetic import synthetic_cycles


def _prepared(n: int, seed: int) -> tuple[Contributions, dict[str, Grouping]]:
    judged = judged_in_scope(synthetic_cycles(n, seed=seed, contributors=4, models=4))
    return contributions(judged), {str(view): g for view, g in view_groupings(judged, DEFAULT_FAMILY_PATTERN).items()}


def _materialized_score_adj(layout_cycles: Contributions, group: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Score one resample the slow, obvious way: repeat each drawn cycle and run the point scorecard."""
    repeat = counts.astype(np.int64)
    values = np.repeat(layout_cycles.values, repeat, axis=0)
    latency = np.repeat(layout_cycles.latency, repeat)
    with_latency = np.flatnonzero(latency >= 0)
    resampled = Contributions(
        values=values,
        columns=np.ascontiguousarray(values.T),
        latency=latency,
        steps=np.repeat(layout_cycles.steps, repeat),
        latency_order=with_latency[np.argsort(latency[with_latency], kind="stable")],
    )
    groups = int(group.max()) + 1
    grouping = Grouping("model", np.repeat(group, repeat), [f"g{i}" for i in range(groups)], [0] * groups, None, None)
    return point_scorecard(grouping, resampled, min_judged=0).finished.score_adj


def _assert_counts_score_as_materialized(cycles: Contributions, grouping: Grouping) -> None:
    ranked = point_scorecard(grouping, cycles).ranked
    assert ranked.sum() >= 2
    layout = resample_layout(grouping.codes, ranked, cycles)
    counts = resample_counts(np.random.default_rng(7), draw_plan(layout.bounds), 4)
    # The layout's own cycles, as contributions, with their layout group.
    layout_cycles = Contributions(
        values=layout.values,
        columns=np.ascontiguousarray(layout.values.T),
        latency=layout.latency,
        steps=np.where(layout.latency >= 0, layout.bag_weights, 1).astype(np.int64),
        latency_order=np.array([], dtype=np.int64),
    )
    group = np.repeat(np.arange(len(layout.bounds) - 1), np.diff(layout.bounds))

    fast = resampled_scores(layout, counts.copy())

    for r in range(counts.shape[0]):
        np.testing.assert_allclose(fast[r], _materialized_score_adj(layout_cycles, group, counts[r]), atol=1e-9)


@pytest.mark.parametrize("view", VIEWS)
def test_it_scores_counts_exactly_as_the_materialized_resample(view: str) -> None:
    cycles, groupings = _prepared(3000, seed=3)
    _assert_counts_score_as_materialized(cycles, groupings[view])


def test_it_scores_big_groups_exactly_as_the_materialized_resample() -> None:
    judged = judged_in_scope(synthetic_cycles(12_000, seed=8, contributors=4, models=2))
    grouping = view_groupings(judged, DEFAULT_FAMILY_PATTERN)["model"]
    assert min(np.bincount(grouping.codes)) > 4000
    _assert_counts_score_as_materialized(contributions(judged), grouping)


def test_it_draws_as_many_cycles_as_each_group_has() -> None:
    bounds = np.array([0, 3, 3 + 3, 10, 30])
    counts = resample_counts(np.random.default_rng(1), draw_plan(bounds), 50)
    for g in range(len(bounds) - 1):
        assert (counts[:, bounds[g] : bounds[g + 1]].sum(axis=1) == bounds[g + 1] - bounds[g]).all()
    assert (counts >= 0).all()
    # Uniform draws: every cycle is drawn once per resample on average.
    assert abs(counts.mean() - 1.0) < 0.1


def test_it_reproduces_the_bootstrap_from_its_seed_and_changes_with_another() -> None:
    cycles, groupings = _prepared(700, seed=5)
    grouping = groupings["modelCombo"]
    ranked = point_scorecard(grouping, cycles).ranked

    def samples(seed: int) -> np.ndarray:
        return bootstrap_scores(grouping.codes, ranked, cycles, resamples=30, rng=view_rng(seed, 3))

    assert np.array_equal(samples(11), samples(11))
    assert not np.array_equal(samples(11), samples(12))


def test_it_gives_each_view_its_own_stream() -> None:
    first = view_rng(20260909, 0).integers(0, 2**62, 4)
    assert not np.array_equal(first, view_rng(20260909, 1).integers(0, 2**62, 4))
    assert np.array_equal(first, view_rng(20260909, 0).integers(0, 2**62, 4))


def test_it_ranks_by_intervals_so_overlapping_groups_tie() -> None:
    lo = np.array([60.0, 55.0, 40.0, 20.0])
    hi = np.array([70.0, 65.0, 58.0, 30.0])
    # Group 2's upper bound 58 is below group 0's lower bound 60 only.
    assert interval_ranks(lo, hi).tolist() == [1, 1, 2, 4]


def test_it_ranks_point_scores_with_equal_scores_tied() -> None:
    assert point_ranks(np.array([50.0, 70.0, 50.0, 10.0])).tolist() == [2, 1, 2, 4]


def test_it_counts_contributors_and_the_largest_share_per_group() -> None:
    codes = np.array([0, 0, 0, 0, 1, 1, -1, 2])
    contributor = np.array([0, 0, 0, 1, 1, 2, 0, 2])
    who = contributorship(codes, contributor, groups=3, contributors=3)
    assert who.contributors.tolist() == [2, 2, 1]
    assert who.top_share.tolist() == [0.75, 0.5, 1.0]


@pytest.mark.parametrize(
    ("hjudged", "contributors", "top_share", "expected"),
    [
        (29, 3, 0.5, ["thin"]),
        (30, 3, 0.5, []),
        (100, 1, 1.0, ["one-contributor", "dominated"]),
        (100, 2, 0.8, ["dominated"]),
        (100, 2, 0.79, []),
        (12, 1, 1.0, ["thin", "one-contributor", "dominated"]),
    ],
)
def test_it_flags_thin_single_and_dominated_rows(
    hjudged: int, contributors: int, top_share: float, expected: list[str]
) -> None:
    assert flags(hjudged, contributors, top_share) == expected


def test_it_counts_each_run_of_groups_exactly_as_the_draws_say() -> None:
    bounds = np.array([0, 5, 10, 4005, 9005, 14005, 22005])  # runs: two of 5, one of 3995, two of 5000, 8000
    plan = draw_plan(bounds)
    assert [size for _, _, size in plan.runs] == [5, 3995, 5000, 8000]
    counts = resample_counts(np.random.default_rng(3), plan, 3)
    # Replay the same draws and count them the plain way: one bincount over all rows.
    replay = np.random.default_rng(3)
    drawn = np.empty((3, int(bounds[-1])), dtype=np.int64)
    for lo, hi, size in plan.runs:
        drawn[:, lo:hi] = replay.integers(0, size, size=(3, hi - lo), dtype=np.uint32) + plan.offsets[lo:hi]
    for r in range(3):
        assert np.array_equal(counts[r], np.bincount(drawn[r], minlength=int(bounds[-1])))
    for g in range(len(bounds) - 1):
        assert (counts[:, bounds[g] : bounds[g + 1]].sum(axis=1) == bounds[g + 1] - bounds[g]).all()
