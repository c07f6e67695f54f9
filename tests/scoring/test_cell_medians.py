"""Medians by cell (scoring.cell_medians) are A3's weighted medians of the pairs each resample weights."""

import numpy as np
import pytest

from scoring.bootstrap import by_cell, resample_cell_counts, resample_layout, resampled_scores
from scoring.cell_medians import CellBags, resampled_medians, resampled_pool_median
from scoring.document import ScoringConfig, prepare
from scoring.scorecard import bounds_of, point_scorecard
from scoring.sums import weighted_medians
from tests.cycles.frames import synthetic_cycles


def _bags(seed: int, groups: int = 4) -> tuple[CellBags, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    cells_per_group = rng.integers(1, 6, groups)
    cell_bounds = bounds_of(cells_per_group)
    cells = int(cell_bounds[-1])
    pairs = 400
    cell = rng.integers(0, cells, pairs)
    cell[:cells] = np.arange(cells)  # every cell owns a pair, and some own many
    latency = np.round(rng.gamma(2.0, 3.0, pairs), 0)  # whole seconds: levels repeat within and across cells
    weight = rng.integers(1, 50, pairs)
    return CellBags.of(cell, latency, weight, cell_bounds, np.unique(latency)), cell, latency, weight, cell_bounds


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_medians_by_cell_are_the_weighted_medians_of_the_drawn_pairs(seed: int) -> None:
    bags, cell, latency, weight, cell_bounds = _bags(seed)
    counts = resample_cell_counts(np.random.default_rng(seed), cell_bounds, 25)
    counts[0] = 0  # a resample that draws nothing: no weight, no median
    counts[0, : cell_bounds[1]] = 1
    group = np.searchsorted(cell_bounds, cell, side="right") - 1
    order = np.lexsort((latency, group))
    bounds = bounds_of(np.bincount(group, minlength=len(cell_bounds) - 1))
    for r in range(counts.shape[0]):
        drawn = weight[order] * counts[r, cell[order]]
        expected = weighted_medians(latency[order], drawn, bounds)[0]
        np.testing.assert_array_equal(resampled_medians(bags, counts[r : r + 1])[0], expected)
        pooled = np.argsort(latency, kind="stable")
        pool = weighted_medians(latency[pooled], weight[pooled] * counts[r, cell[pooled]], np.array([0, len(cell)]))
        np.testing.assert_array_equal(resampled_pool_median(bags, counts[r : r + 1]), pool[:, 0])
    assert np.isnan(resampled_medians(bags, counts[:1])[0, 1:]).all()


def test_the_bootstrap_scores_alike_by_cell_and_by_pair() -> None:
    # Few contributors and groups, many cycles: cells hold many pairs each, so the bootstrap goes by cell.
    cycles = synthetic_cycles(20_000, seed=5, contributors=4, models=2, efforts=1)
    prepared = prepare(cycles, ScoringConfig(), None, None)
    grouping = prepared.groupings["model"]
    card = point_scorecard(grouping, prepared.contributions)
    layout = resample_layout(grouping.codes, card.ranked, prepared.contributions, prepared.judged.contributor_code)
    assert by_cell(layout)
    counts = resample_cell_counts(np.random.default_rng(4), layout.cell_bounds, 30)
    by_pair = resampled_scores(layout, counts, medians_by_cell=False)
    np.testing.assert_allclose(resampled_scores(layout, counts, medians_by_cell=True), by_pair, rtol=0, atol=1e-12)
