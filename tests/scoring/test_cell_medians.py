"""Binned bags (scoring.cell_medians) give A3's weighted medians of the pairs each resample weights, to the bit."""

import numpy as np
import pytest

from scoring import cell_medians
from scoring.bootstrap import resample_cell_counts, resample_layout, resampled_scores_and_axes
from scoring.cell_medians import BinnedBag, binned_group_bags, binned_pool_bag
from scoring.document import ScoringConfig, prepare
from scoring.scorecard import bounds_of, point_scorecard
from scoring.sums import weighted_medians
from tests.cycles.frames import synthetic_cycles


def _pairs(seed: int, groups: int = 4, pairs: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    cell_bounds = bounds_of(rng.integers(1, 6, groups))
    cells = int(cell_bounds[-1])
    cell = rng.integers(0, cells, pairs)
    cell[:cells] = np.arange(cells)  # every cell owns a pair, and some own many
    latency = np.round(rng.gamma(2.0, 3.0, pairs), 0)  # whole seconds: levels repeat within and across cells
    weight = rng.integers(1, 50, pairs)
    return cell, latency, weight, cell_bounds


def _group_order(cell: np.ndarray, latency: np.ndarray, cell_bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    group = np.searchsorted(cell_bounds, cell, side="right") - 1
    order = np.lexsort((latency, group))
    return order, bounds_of(np.bincount(group, minlength=len(cell_bounds) - 1))


# A bag's run weights summed in one pass (as every bag of a test pool is), or run by run (as a bag of ten million).
@pytest.mark.parametrize("one_pass_pairs", [cell_medians.ONE_PASS_PAIRS, 0])
@pytest.mark.parametrize(("seed", "bins"), [(1, 256), (2, 7), (3, 2), (4, 1)])
def test_binned_medians_are_the_weighted_medians_of_the_drawn_pairs(
    seed: int, bins: int, one_pass_pairs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Few runs put many pairs, and many equal latencies, in each: the second stage does the work.
    monkeypatch.setattr(cell_medians, "BINS", bins)
    monkeypatch.setattr(cell_medians, "ONE_PASS_PAIRS", one_pass_pairs)
    cell, latency, weight, cell_bounds = _pairs(seed)
    order, bounds = _group_order(cell, latency, cell_bounds)
    bags = binned_group_bags(latency[order], cell[order], weight[order], bounds, cell_bounds)
    by_latency = np.argsort(latency, kind="stable")
    pool = binned_pool_bag(latency[by_latency], cell[by_latency], weight[by_latency], int(cell_bounds[-1]))
    counts = resample_cell_counts(np.random.default_rng(seed), cell_bounds, 25)
    counts[0] = 0  # a resample that draws nothing beyond the first group: no weight, no median elsewhere
    counts[0, : cell_bounds[1]] = 1
    for r in range(counts.shape[0]):
        drawn = weight[order] * counts[r, cell[order]]
        expected = weighted_medians(latency[order], drawn, bounds)[0]
        ours = np.array([bag.medians(counts[r : r + 1])[0] for bag in bags])
        np.testing.assert_array_equal(ours, expected)
        pooled = np.argsort(latency, kind="stable")
        whole = weighted_medians(latency[pooled], weight[pooled] * counts[r, cell[pooled]], np.array([0, len(cell)]))
        np.testing.assert_array_equal(pool.medians(counts[r : r + 1]), whole[:, 0])
    assert np.isnan([bag.medians(counts[:1])[0] for bag in bags[1:]]).all()


def test_runs_never_split_equal_latencies_and_the_matrix_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cell_medians, "MATRIX_ENTRIES", 40)
    latency = np.repeat(np.arange(50, dtype=np.float64), 7)
    cells = 8
    cell = np.arange(len(latency)) % cells
    bag = BinnedBag.of(latency, cell, np.ones(len(latency), dtype=np.int64), 0, cells)
    assert bag.through.size <= 40
    starts = bag.run_bounds[1:-1]
    assert (latency[starts] != latency[starts - 1]).all()
    assert bag.through[:, -1].tolist() == [len(latency) // cells + (c < len(latency) % cells) for c in range(cells)]


def test_an_empty_bag_has_no_median() -> None:
    bag = BinnedBag.of(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0, 3)
    assert np.isnan(bag.medians(np.ones((4, 3), dtype=np.int64))).all()


def test_the_bootstrap_scores_alike_with_one_run_and_with_many(monkeypatch: pytest.MonkeyPatch) -> None:
    # Few contributors and groups, many cycles: cells hold many pairs each, so the runs matter.
    cycles = synthetic_cycles(20_000, seed=5, contributors=4, models=2, efforts=1)
    prepared = prepare(cycles, ScoringConfig(), None, None)
    grouping = prepared.groupings["model"]
    card = point_scorecard(grouping, prepared.contributions)

    def scores() -> np.ndarray:
        layout = resample_layout(grouping.codes, card.ranked, prepared.contributions, prepared.judged.contributor_code)
        return resampled_scores_and_axes(
            layout, resample_cell_counts(np.random.default_rng(4), layout.cell_bounds, 30)
        )[0]

    binned = scores()
    monkeypatch.setattr(cell_medians, "BINS", 1)  # one run: the second stage reads every pair, as A3 says
    np.testing.assert_array_equal(scores(), binned)
