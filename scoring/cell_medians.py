"""Weighted medians of resampled latency bags, by bisection over the levels of each cell's weights (spec A3, B1).

A resample draws whole cells: every latency pair of a cell gets the cell's draw count as a factor on its weight.
So the weight at or below a level in a group's bag is, per resample, the sum over the group's cells of the cell's
count times the cell's own weight at or below that level, which is fixed: kept once as each cell's running weight
over its pairs sorted by level. A3's median (the first value at which the running weight reaches half the total)
is the smallest level whose weight at or below reaches ceil(total / 2), found by bisection over the distinct
levels for every resample and group at once. Each step costs resamples x cells look-ups, never resamples x pairs:
the bags are read once, not once per resample.

Pure: numpy, no Django.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class CellBags:
    """The latency pairs of a layout's cells, sorted by (cell, level), with their running weight."""

    levels: FloatArray  # the distinct latencies, ascending
    keys: IntArray  # per pair, ascending: cell x (levels + 1) + level index
    running: IntArray  # (pairs + 1,) running weight over the pairs in key order, from 0
    first: IntArray  # (cells,) each cell's first position in keys
    totals: IntArray  # (cells,) each cell's whole weight
    cell_bounds: IntArray  # (G + 1,) group j's cells are cell_bounds[j]:cell_bounds[j+1]

    @classmethod
    def of(
        cls, cell: IntArray, latency: FloatArray, weight: IntArray, cell_bounds: IntArray, levels: FloatArray
    ) -> "CellBags":
        """`cell`, `latency`, `weight`: one entry per pair, in any order; `levels` the distinct latencies."""
        cells = int(cell_bounds[-1])
        width = len(levels) + 1
        keys = cell.astype(np.int64) * width + np.searchsorted(levels, latency).astype(np.int64)
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        running = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(weight[order], out=running[1:])
        base = np.arange(cells, dtype=np.int64) * width
        first = np.searchsorted(keys, base, side="left").astype(np.int64)
        after = np.searchsorted(keys, base + width, side="left").astype(np.int64)
        return cls(levels, keys, running, first, running[after] - running[first], cell_bounds)

    @property
    def width(self) -> int:
        return len(self.levels) + 1

    def weight_through(self, level: IntArray) -> IntArray:
        """(B, cells) each cell's own weight at latency levels <= level[r, c]."""
        cells = len(self.first)
        query = np.arange(cells, dtype=np.int64) * self.width + level
        position = np.searchsorted(self.keys, query.ravel(), side="right").reshape(query.shape)
        return self.running[position] - self.running[self.first]


def _bisect(bags: CellBags, counts: IntArray, cell_group: IntArray, starts: IntArray, groups: int) -> FloatArray:
    """(B, groups) medians of the groups' bags (cells grouped by `cell_group`, in runs beginning at `starts`)."""
    resamples = counts.shape[0]
    out = np.full((resamples, groups), np.nan)
    if len(bags.levels) == 0 or len(cell_group) == 0:
        return out
    total = np.add.reduceat(counts * bags.totals, starts, axis=1)
    target = (total + 1) // 2
    lo = np.zeros((resamples, groups), dtype=np.int64)
    hi = np.full((resamples, groups), len(bags.levels) - 1, dtype=np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        below = np.add.reduceat(counts * bags.weight_through(mid[:, cell_group]), starts, axis=1)
        reached = below >= target
        hi = np.where(reached, mid, hi)
        lo = np.where(reached, lo, mid + 1)
    out = bags.levels[lo]
    out[total == 0] = np.nan
    return out


def resampled_medians(bags: CellBags, counts: IntArray) -> FloatArray:
    """(B, G) each group's weighted median latency under each row of cell counts; NaN where no weight is drawn."""
    groups = len(bags.cell_bounds) - 1
    sizes = np.diff(bags.cell_bounds)
    cell_group = np.repeat(np.arange(groups, dtype=np.int64), sizes)
    if groups == 0 or np.any(sizes == 0):  # reduceat needs every group to own a cell; a ranked group always does
        raise ValueError("every group needs at least one cell")
    return _bisect(bags, counts.astype(np.int64), cell_group, bags.cell_bounds[:-1], groups)


def resampled_pool_median(bags: CellBags, counts: IntArray) -> FloatArray:
    """(B,) the weighted median of all groups' bags together under each row of cell counts (A4's pool)."""
    cells = len(bags.first)
    if cells == 0:
        return np.full(counts.shape[0], np.nan)
    cell_group = np.zeros(cells, dtype=np.int64)
    return _bisect(bags, counts.astype(np.int64), cell_group, np.zeros(1, dtype=np.int64), 1)[:, 0]
