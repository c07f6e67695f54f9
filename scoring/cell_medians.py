"""Weighted medians of resampled latency bags in two stages: which run of latencies, then where in it (spec A3, B1).

A resample draws whole cells: every latency pair of a cell gets the cell's draw count as a factor on its weight.
A3's median of a bag is the first value, in latency order, at which the running weight reaches half the total.
Reading every pair for every resample costs resamples x pairs, which grows with the pool. Instead a bag's pairs,
in latency order, are cut once into at most BINS runs (never between equal latencies), and each cell's weight
through the end of every run is kept as a cells x runs matrix. A resample's weight through every run is then one
matrix product of its draw counts with that matrix, which names the run holding the median; only that run's pairs
are read, weighted by the resample's counts, to find the median inside it.

Both stages sum whole numbers far below 2^53, so the float64 products are exact and the median is A3's to the
last bit. The cost is about resamples x cells x runs multiply-adds and resamples x pairs / runs reads.

Pure: numpy, no Django.
"""

from dataclasses import dataclass

import numpy as np

from scoring.shapes import FloatArray, IntArray, SmallIntArray

BINS = 256  # runs per bag at the most
# A bag's cells x runs matrix holds at most this many entries (32 MB): a bag of many cells gets fewer runs.
MATRIX_ENTRIES = 4_000_000
# Up to this many pairs a bag's run weights are summed in one pass; a larger bag is summed run by run, which costs
# a call per run (too many for thousands of small bags) but no pair-sized keys.
ONE_PASS_PAIRS = 1_000_000


@dataclass(frozen=True)
class BinnedBag:
    """One bag's pairs in latency order, cut into runs. Its cells are first_cell : first_cell + cells of the
    draw counts' columns; `pair_cell` numbers them from 0."""

    first_cell: int
    cells: int
    latency: FloatArray  # (m,) ascending
    pair_cell: SmallIntArray  # (m,) the cell of each pair, from 0
    weight: SmallIntArray  # (m,) each pair's steps (a cycle's, or a cell's at one latency)
    run_bounds: IntArray  # (runs + 1,) run k is pairs run_bounds[k]:run_bounds[k + 1]
    through: FloatArray  # (cells, runs) each cell's weight in runs 0..k

    @classmethod
    def of(
        cls,
        latency: FloatArray,
        pair_cell: IntArray | SmallIntArray,
        weight: IntArray | SmallIntArray,
        first_cell: int,
        cells: int,
    ) -> "BinnedBag":
        """`latency` ascending; `pair_cell` from 0 to cells - 1."""
        pairs = len(latency)
        runs = max(1, min(BINS, MATRIX_ENTRIES // max(cells, 1)))
        cuts = np.linspace(0, pairs, runs + 1).round().astype(np.int64)[1:-1]
        cuts = cuts[cuts > 0]
        # A cut moves past every pair equal to the one before it, so equal latencies share a run.
        cuts = np.searchsorted(latency, latency[cuts - 1], side="right")
        run_bounds = np.unique(np.concatenate(([0], cuts, [pairs]))).astype(np.int64)
        if len(run_bounds) == 1:  # no pairs: one empty run
            run_bounds = np.zeros(2, dtype=np.int64)
        runs = len(run_bounds) - 1
        through: FloatArray
        if pairs <= ONE_PASS_PAIRS:  # one bincount over (cell, run) keys: a few small pair-sized arrays
            run_of_pair = np.repeat(np.arange(runs, dtype=np.int64), np.diff(run_bounds))
            keys = pair_cell * runs + run_of_pair
            through = (
                np.bincount(keys, weights=weight, minlength=cells * runs)
                .reshape(cells, runs)
                .astype(np.float64, copy=False)
            )
        else:  # run by run: no pair-sized keys (~70 MB each at ten million pairs)
            through = np.empty((cells, runs), dtype=np.float64)
            for k in range(runs):
                span = slice(int(run_bounds[k]), int(run_bounds[k + 1]))
                through[:, k] = np.bincount(pair_cell[span], weights=weight[span], minlength=cells)
        np.cumsum(through, axis=1, out=through)
        # The pairs are kept for the second stage in 32 bits: a bag is held per group and view.
        return cls(
            first_cell, cells, latency, pair_cell.astype(np.int32, copy=False), bag_weights(weight), run_bounds, through
        )

    def medians(self, counts: IntArray) -> FloatArray:
        """(B,) A3's median of the bag under each row of cell counts (B x all cells); NaN where no weight is drawn."""
        resamples = counts.shape[0]
        drawn = counts[:, self.first_cell : self.first_cell + self.cells]
        through = drawn.astype(np.float64) @ self.through  # (B, runs), exact: whole numbers below 2^53
        total = through[:, -1]
        target = np.floor((total + 1) / 2)  # reaching half the total is reaching ceil(total / 2)
        run = np.argmax(through >= target[:, None], axis=1)
        below = np.where(run > 0, through[np.arange(resamples), np.maximum(run - 1, 0)], 0.0)
        need = (target - below).astype(np.int64)
        out = np.full(resamples, np.nan)
        weighed = total > 0
        for k in np.unique(run[weighed]):
            rows = np.flatnonzero(weighed & (run == k))
            span = slice(int(self.run_bounds[k]), int(self.run_bounds[k + 1]))
            weights = drawn[rows][:, self.pair_cell[span]].astype(np.int64) * self.weight[span]
            running = np.cumsum(weights, axis=1)
            out[rows] = self.latency[span][np.argmax(running >= need[rows, None], axis=1)]
        return out


def bag_weights(weight: IntArray | SmallIntArray) -> SmallIntArray:
    """Pair weights in the 32 bits a bag keeps them in (no copy when they are already)."""
    if len(weight) and int(weight.max()) >= 2**31:
        raise ValueError("a latency weight beyond 32 bits")
    return weight.astype(np.int32, copy=False)


def binned_group_bags(
    latency: FloatArray,
    bag_cell: IntArray | SmallIntArray,
    weight: IntArray | SmallIntArray,
    bag_bounds: IntArray,
    cell_bounds: IntArray,
) -> tuple[BinnedBag, ...]:
    """Each group's bag: group j's pairs are bag_bounds[j]:bag_bounds[j+1], already in latency order, and its cells
    cell_bounds[j]:cell_bounds[j+1]."""
    bags = []
    for j in range(len(cell_bounds) - 1):
        span = slice(int(bag_bounds[j]), int(bag_bounds[j + 1]))
        first, cells = int(cell_bounds[j]), int(cell_bounds[j + 1] - cell_bounds[j])
        bags.append(BinnedBag.of(latency[span], bag_cell[span] - first, weight[span], first, cells))
    return tuple(bags)


def binned_pool_bag(
    latency: FloatArray, bag_cell: IntArray | SmallIntArray, weight: IntArray | SmallIntArray, cells: int
) -> BinnedBag:
    """All groups' pairs together, `latency` ascending, as one bag over every cell (A4's pool median)."""
    return BinnedBag.of(latency, bag_cell, weight, 0, cells)
