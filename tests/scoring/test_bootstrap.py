"""B1: the cluster bootstrap equals scoring materialized resamples, is reproducible, and ranks by its intervals."""

import numpy as np
import pytest
from scipy import stats

from scoring.bootstrap import (
    bootstrap_scores,
    cell_group_sums,
    cluster_t_interval,
    resample_cell_counts,
    resample_layout,
    resampled_scores_and_axes,
    t_factor,
    view_rng,
)
from scoring.caveats import contributorship, flags, interval_ranks, interval_worst_ranks, point_ranks
from scoring.compare import compare_from_samples
from scoring.groupings import Grouping, view_groupings
from scoring.judged import Contributions, JudgedCycles, contributions, judged_in_scope
from scoring.scorecard import point_scorecard
from scoring.shapes import DEFAULT_FAMILY_PATTERN, VIEWS
from tests.cycles.frames import synthetic_cycles


def _prepared(n: int, seed: int, contributors: int = 6) -> tuple[JudgedCycles, Contributions, dict[str, Grouping]]:
    judged = judged_in_scope(synthetic_cycles(n, seed=seed, contributors=contributors, models=4))
    groupings = {str(view): g for view, g in view_groupings(judged, DEFAULT_FAMILY_PATTERN).items()}
    return judged, contributions(judged), groupings


def _materialized_score_adj(cycles: Contributions, group: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Score one resample the slow, obvious way: repeat each drawn cycle and run the point scorecard."""
    repeat = counts.astype(np.int64)
    latency = np.full(cycles.columns.shape[1], -1.0)
    latency[cycles.pair_row] = cycles.pair_latency
    steps = np.zeros(cycles.columns.shape[1], dtype=np.int64)
    steps[cycles.pair_row] = cycles.pair_steps
    resampled = Contributions.of_rows(
        np.repeat(cycles.columns, repeat, axis=1), np.repeat(latency, repeat), np.repeat(steps, repeat)
    )
    groups = int(group.max()) + 1
    grouping = Grouping("model", np.repeat(group, repeat), [f"g{i}" for i in range(groups)], [0] * groups, None, None)
    return point_scorecard(grouping, resampled, min_judged=0).finished.score_adj


def _assert_cell_counts_score_as_materialized(judged: JudgedCycles, cycles: Contributions, grouping: Grouping) -> None:
    ranked = point_scorecard(grouping, cycles).ranked
    assert ranked.sum() >= 2
    layout = resample_layout(grouping.codes, ranked, cycles, judged.contributor_code)
    counts = resample_cell_counts(np.random.default_rng(7), layout.cell_bounds, 4)
    rows = layout.rows
    # The layout's own cycles, in layout order, as contributions; each drawn cell repeats all its cycles.
    position = np.full(cycles.columns.shape[1], -1)
    position[rows] = np.arange(len(rows))
    mine = position[cycles.pair_row] >= 0
    layout_cycles = Contributions.of_pairs(
        cycles.columns[:, rows], position[cycles.pair_row[mine]], cycles.pair_latency[mine], cycles.pair_steps[mine]
    )
    group = np.repeat(np.arange(len(layout.bounds) - 1), np.diff(layout.bounds))

    fast = resampled_scores_and_axes(layout, counts)[0]

    for r in range(counts.shape[0]):
        per_cycle = counts[r, layout.cell_of_row]
        np.testing.assert_allclose(fast[r], _materialized_score_adj(layout_cycles, group, per_cycle), atol=1e-9)


@pytest.mark.parametrize("view", VIEWS)
def test_it_scores_cell_counts_exactly_as_the_materialized_resample(view: str) -> None:
    judged, cycles, groupings = _prepared(3000, seed=3)
    _assert_cell_counts_score_as_materialized(judged, cycles, groupings[view])


def test_it_scores_big_groups_exactly_as_the_materialized_resample() -> None:
    judged = judged_in_scope(synthetic_cycles(12_000, seed=8, contributors=5, models=2))
    grouping = view_groupings(judged, DEFAULT_FAMILY_PATTERN)["model"]
    assert min(np.bincount(grouping.codes)) > 4000
    _assert_cell_counts_score_as_materialized(judged, contributions(judged), grouping)


def test_it_lays_out_one_cell_per_group_and_contributor() -> None:
    judged, cycles, groupings = _prepared(2000, seed=4, contributors=5)
    grouping = groupings["model"]
    ranked = point_scorecard(grouping, cycles).ranked
    layout = resample_layout(grouping.codes, ranked, cycles, judged.contributor_code)
    who = contributorship(grouping.codes, judged.contributor_code, len(grouping.labels), judged.contributors)
    assert layout.contributors.tolist() == who.contributors[ranked].tolist()
    # Every cycle of a cell is one contributor's, in that group.
    contributor = judged.contributor_code[layout.rows]
    group = np.repeat(np.arange(len(layout.bounds) - 1), np.diff(layout.bounds))
    for cell in range(int(layout.cell_bounds[-1])):
        mine = layout.cell_of_row == cell
        assert len(set(contributor[mine])) == 1 and len(set(group[mine])) == 1
    np.testing.assert_allclose(layout.cell_values.sum(axis=0), cycles.columns[:, layout.rows].sum(axis=1), rtol=1e-12)


def test_it_draws_as_many_cells_as_each_group_has() -> None:
    cell_bounds = np.array([0, 1, 4, 14, 54])
    counts = resample_cell_counts(np.random.default_rng(1), cell_bounds, 400)
    for g in range(len(cell_bounds) - 1):
        lo, hi = cell_bounds[g], cell_bounds[g + 1]
        assert (counts[:, lo:hi].sum(axis=1) == hi - lo).all()
    assert (counts >= 0).all()
    assert (counts[:, 0] == 1).all()  # a lone cell is always the one drawn
    # Uniform draws: every cell is drawn once per resample on average.
    assert abs(counts.mean() - 1.0) < 0.05


def test_it_reproduces_the_bootstrap_from_its_seed_and_changes_with_another() -> None:
    judged, cycles, groupings = _prepared(700, seed=5)
    grouping = groupings["modelCombo"]
    ranked = point_scorecard(grouping, cycles).ranked

    def samples(seed: int) -> np.ndarray:
        return bootstrap_scores(
            grouping.codes, ranked, cycles, judged.contributor_code, resamples=30, rng=view_rng(seed, 3)
        ).samples

    assert np.array_equal(samples(11), samples(11))
    assert not np.array_equal(samples(11), samples(12))


def test_it_gives_each_view_its_own_stream() -> None:
    first = view_rng(20260909, 0).integers(0, 2**62, 4)
    assert not np.array_equal(first, view_rng(20260909, 1).integers(0, 2**62, 4))
    assert np.array_equal(first, view_rng(20260909, 0).integers(0, 2**62, 4))


def test_it_widens_the_bootstrap_by_the_t_quantile_and_the_cluster_factor() -> None:
    factor = t_factor(np.array([1, 2, 5, 40]))
    assert np.isnan(factor[0])
    assert factor[1] == pytest.approx(stats.t.ppf(0.975, 1) * np.sqrt(2))
    assert factor[2] == pytest.approx(2.7764451 * np.sqrt(5 / 4), rel=1e-6)
    assert factor[3] == pytest.approx(stats.t.ppf(0.975, 39) * np.sqrt(40 / 39))


def test_it_gives_no_interval_to_one_contributor_and_clips_to_the_score_range() -> None:
    samples = np.array([[50.0, 95.0, 40.0], [52.0, 99.0, 40.0], [54.0, 97.0, 40.0], [56.0, 93.0, 40.0]])
    point = np.array([53.0, 96.0, 40.0])
    lo, hi = cluster_t_interval(point, samples, np.array([10, 3, 1]))
    half = t_factor(10) * np.std(samples[:, 0], ddof=1)
    assert lo[0] == pytest.approx(53.0 - half) and hi[0] == pytest.approx(53.0 + half)
    assert hi[1] == 100.0 and lo[1] < 96.0
    assert np.isnan(lo[2]) and np.isnan(hi[2])


def test_it_compares_with_the_smaller_sides_contributors() -> None:
    rng = np.random.default_rng(2)
    a, b = 60 + rng.normal(0, 2, 200), 55 + rng.normal(0, 3, 200)
    found = compare_from_samples(score_a=60, score_b=55, samples_a=a, samples_b=b, contributors_a=30, contributors_b=4)
    half = t_factor(4) * np.std(a - b, ddof=1)
    assert found.contributors == 4
    assert found.ci == pytest.approx((5 - half, 5 + half))
    assert found.share_a_better == pytest.approx(float((a > b).mean()))
    lone = compare_from_samples(score_a=60, score_b=55, samples_a=a, samples_b=b, contributors_a=1, contributors_b=9)
    assert lone.ci is None and lone.share_a_better is not None


def test_it_ranks_by_intervals_so_overlapping_groups_tie() -> None:
    lo = np.array([60.0, 55.0, 40.0, 20.0])
    hi = np.array([70.0, 65.0, 58.0, 30.0])
    # Group 2's upper bound 58 is below group 0's lower bound 60 only.
    assert interval_ranks(lo, hi).tolist() == [1, 1, 2, 4]
    # Group 0 is surely above groups 2 and 3; group 3 is surely below every other.
    assert interval_worst_ranks(lo, hi).tolist() == [2, 3, 3, 4]


def test_it_lets_a_group_without_an_interval_claim_nothing_and_block_nothing() -> None:
    lo = np.array([60.0, np.nan, 20.0])
    hi = np.array([70.0, np.nan, 30.0])
    assert interval_ranks(lo, hi).tolist() == [1, 1, 2]
    assert interval_worst_ranks(lo, hi).tolist() == [2, 3, 3]


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


def test_it_sums_many_groups_as_it_sums_few() -> None:
    rng = np.random.default_rng(4)
    per_group = rng.integers(1, 5, 300)
    cell_bounds = np.concatenate(([0], np.cumsum(per_group)))
    values = rng.random((int(cell_bounds[-1]), 13))
    counts = resample_cell_counts(rng, cell_bounds, 3)
    many = cell_group_sums(values, np.ascontiguousarray(values.T), cell_bounds, counts)
    for g in range(300):
        lo, hi = cell_bounds[g], cell_bounds[g + 1]
        np.testing.assert_allclose(many[:, g, :], counts[:, lo:hi] @ values[lo:hi], rtol=1e-12)


def test_it_draws_the_same_resamples_whatever_the_chunk() -> None:
    cell_bounds = np.array([0, 3, 10, 50])
    whole = resample_cell_counts(np.random.default_rng(9), cell_bounds, 6)
    rng = np.random.default_rng(9)
    parts = np.vstack([resample_cell_counts(rng, cell_bounds, 4), resample_cell_counts(rng, cell_bounds, 2)])
    assert np.array_equal(whole, parts)
