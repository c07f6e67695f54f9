"""Contributor-cluster bootstrap-t of scoreAdj (scoring spec B1).

Cycles from one contributor are not independent draws, so the unit of resampling is the cell: a group's cycles
from one contributor. A resample draws, inside every ranked group, as many of its cells as it has, uniformly with
replacement; each drawn cell brings all of its cycles, and the pool is recomputed from the resampled groups.

A resample is kept as how often each cell was drawn. Group sums are those counts times the cells' sums; the latency
medians weigh each pair by its steps times its cell's count, A3's rule unchanged (scoring.cell_medians finds them
without reading every pair for every resample). Resamples run in chunks, draws included, so memory stays flat
however large the pool.

The interval is a bootstrap-t on clusters: scoreAdj +- t(0.975, K - 1) * s * sqrt(K / (K - 1)), K the group's
contributors and s the sd of its resampled scoreAdj, clipped to 0..100. The t quantile and the K / (K - 1) factor
correct the bootstrap's optimism with few clusters. K = 1 has no interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scoring.axis_samples import log_values, quantise
from scoring.cell_medians import BinnedBag, bag_weights, binned_group_bags, binned_pool_bag
from scoring.finishing import adjusted, score_of_adjusted
from scoring.scorecard import bounds_of, group_bags, members, pool_bag_pairs, stable_order_by
from scoring.shapes import AXES, EVIDENCE_K, INTERVAL_LEVEL, BoolArray, FloatArray, IntArray
from scoring.sums import evidence, group_sums, pool_axes, raw_axes

if TYPE_CHECKING:  # the pages read t_factor as Django starts; the engine's rows (and pandas) need not load
    from scoring.judged import Contributions

# Draw counts per chunk (resamples x cells); a few arrays of this size are alive at once.
CHUNK_CELLS = 2_000_000
SCORE_RANGE = (0.0, 100.0)


@dataclass(frozen=True)
class ResampleLayout:
    """The rows of a view's ranked groups, laid out for resampling by cell.

    Layout group j is ranked group j (group order) and spans rows bounds[j]:bounds[j+1], in canonical order
    inside it. Cells (group x contributor) are numbered group by group, contributors ascending: group j's cells
    are cell_bounds[j]:cell_bounds[j+1]. The latency bags are the rows' pairs, each group's in its own BinnedBag.
    """

    rows: IntArray  # (n,) the judged row at each laid-out position
    bounds: IntArray
    cell_bounds: IntArray
    cell_of_row: IntArray  # (n,) the cell of each laid-out row
    cell_values: FloatArray  # (cells, S) each cell's sums
    cell_columns: FloatArray  # (S, cells) the same laid out by sum, for segmented sums
    bags: tuple[BinnedBag, ...]  # (G,) each ranked group's latency bag, for its resampled medians
    pool_bag: BinnedBag  # all the groups' bags together: the pool's median

    @property
    def contributors(self) -> IntArray:
        """K per ranked group: its cells."""
        return np.diff(self.cell_bounds)


def resample_layout(
    codes: IntArray, ranked: BoolArray, contributions: Contributions, contributor: IntArray
) -> ResampleLayout:
    """`contributor` is each judged cycle's contributor code (0..C-1)."""
    member = members(codes, ranked)
    ranked_codes = np.flatnonzero(ranked)
    groups = len(ranked_codes)
    layout_group = np.full(len(ranked), -1, dtype=np.int64)
    layout_group[ranked_codes] = np.arange(groups)
    in_view = np.flatnonzero(member)
    in_view_group = layout_group[codes[in_view]]
    order = stable_order_by(in_view_group, groups)
    rows, row_group = in_view[order], in_view_group[order]
    # Cells: distinct (group, contributor) keys in ascending order, so numbered group by group.
    width = int(contributor.max()) + 1 if len(contributor) else 1
    cell_keys, cell_of_row = _distinct(row_group * width + contributor[rows], groups * width)
    cell_columns = np.empty((len(contributions.columns), len(cell_keys)))
    for s, column in enumerate(contributions.columns):
        cell_columns[s] = np.bincount(cell_of_row, weights=column[rows], minlength=len(cell_keys))
    cells_per_group = np.bincount(cell_keys // width, minlength=groups)
    # Each pair named by its cell (-1 outside the view) with its weight, both in the 32 bits a bag keeps them in:
    # at ten million cycles a pair-sized array of 64 bits is ~70 MB, and two views are laid out at once.
    cell_of = np.full(len(codes), -1, dtype=np.int32)
    cell_of[rows] = cell_of_row
    pair_cell, pair_weight = cell_of[contributions.pair_row], bag_weights(contributions.pair_steps)
    cell_bounds = bounds_of(cells_per_group)
    # The group bags' pairs group by group (latency order inside each), the pool's all together in latency order.
    bag, bag_bounds = group_bags(codes, ranked, contributions)
    bags = binned_group_bags(contributions.pair_latency[bag], pair_cell[bag], pair_weight[bag], bag_bounds, cell_bounds)
    del bag
    pool = pool_bag_pairs(codes, ranked, contributions)
    pool_pairs = (contributions.pair_latency, pair_cell, pair_weight)
    if len(pool) < len(contributions.pair_row):  # not every group ranked: the pool's pairs copied, the rest let go
        pool_pairs = (contributions.pair_latency[pool], pair_cell[pool], pair_weight[pool])
    del pool, pair_cell, pair_weight
    pool_bag = binned_pool_bag(*pool_pairs, len(cell_keys))
    del pool_pairs
    return ResampleLayout(
        rows=rows,
        bounds=bounds_of(np.bincount(row_group, minlength=groups)),
        cell_bounds=cell_bounds,
        cell_of_row=cell_of_row,
        cell_values=np.ascontiguousarray(cell_columns.T),
        cell_columns=cell_columns,
        bags=bags,
        pool_bag=pool_bag,
    )


# Up to this many possible (group, contributor) keys, distinct cells are found by counting rather than sorting.
_DENSE_KEYS = 20_000_000


def _distinct(keys: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """np.unique(keys, return_inverse=True) for keys in [0, size): by counting when size allows."""
    if size > _DENSE_KEYS:
        values, inverse = np.unique(keys, return_inverse=True)
        return values.astype(np.int64), inverse.ravel().astype(np.int64)
    present = np.zeros(size, dtype=np.bool_)
    present[keys] = True
    values = np.flatnonzero(present)
    index = np.zeros(size, dtype=np.int64)
    index[values] = np.arange(len(values))
    return values.astype(np.int64), index[keys]


def view_rng(seed: int, view_index: int) -> np.random.Generator:
    """One independent stream per view, so views can be computed in any order or in parallel."""
    return np.random.default_rng(np.random.SeedSequence([seed, view_index]))


def resample_cell_counts(rng: np.random.Generator, cell_bounds: IntArray, resamples: int) -> IntArray:
    """(resamples, cells) counts: in each group, as many uniform draws of its cells with replacement as it has."""
    per_group = np.diff(cell_bounds)
    cells = int(cell_bounds[-1])
    if cells == 0 or resamples == 0:
        return np.zeros((resamples, cells), dtype=np.int64)
    slot_size = np.repeat(per_group, per_group).astype(np.float64)  # each draw slot's group size
    slot_first = np.repeat(cell_bounds[:-1], per_group)  # ... and its group's first cell
    # Uniform cells from uniform floats: floor(u * size) is exact to 2^-53, and one call draws every slot.
    drawn = (rng.random((resamples, cells)) * slot_size).astype(np.int64)
    drawn += slot_first + np.arange(resamples, dtype=np.int64)[:, None] * cells
    return np.bincount(drawn.ravel(), minlength=resamples * cells).reshape(resamples, cells)


def cell_group_sums(
    cell_values: FloatArray, cell_columns: FloatArray, cell_bounds: IntArray, cell_counts: IntArray
) -> FloatArray:
    """(B, G, S) sums per group from how often each cell was drawn.

    Few groups: one small matrix product each. Many (thousands of pairings with effort, a few cells each): one
    segmented sum per column over all cells, rather than a Python loop over the groups.
    """
    groups = len(cell_bounds) - 1
    counts = cell_counts.astype(np.float64)
    if groups <= 64:
        return group_sums(cell_values, cell_bounds, counts)
    out = np.empty((counts.shape[0], groups, cell_values.shape[1]))
    weighted = np.empty_like(counts)
    # Column by column, each contiguous: a strided column would read the whole array once per column.
    for s, column in enumerate(cell_columns):
        np.multiply(counts, column, out=weighted)
        out[:, :, s] = np.add.reduceat(weighted, cell_bounds[:-1], axis=1)
    return out


def resampled_scores_and_axes(
    layout: ResampleLayout, cell_counts: IntArray, evidence_k: int = EVIDENCE_K
) -> tuple[FloatArray, FloatArray]:
    """(B, G) scoreAdj and (B, G, A) adjusted axis values of the ranked groups under each row of cell counts."""
    sums = cell_group_sums(layout.cell_values, layout.cell_columns, layout.cell_bounds, cell_counts)
    latency = np.stack([bag.medians(cell_counts) for bag in layout.bags], axis=1)
    raw = raw_axes(sums, latency)
    pool = pool_axes(sums, layout.pool_bag.medians(cell_counts))[:, None, :]
    adj = adjusted(raw, evidence(sums), pool, evidence_k)
    return score_of_adjusted(adj, pool), adj


@dataclass(frozen=True)
class ClusterBootstrap:
    samples: FloatArray  # (resamples, R) scoreAdj of the R ranked groups, in group order
    contributors: IntArray  # (R,) K: the cells of each ranked group
    # (resamples, R, A) adjusted axis values as axis_samples codes, when asked for (comparisons per axis)
    axis_codes: npt.NDArray[np.int16] | None = None


def bootstrap_scores(
    codes: IntArray,
    ranked: BoolArray,
    contributions: Contributions,
    contributor: IntArray,
    *,
    resamples: int,
    rng: np.random.Generator,
    evidence_k: int = EVIDENCE_K,
    keep_axes: bool = False,
) -> ClusterBootstrap:
    """The cluster bootstrap of the ranked groups of one view; with keep_axes, each resample's axes too."""
    groups = int(ranked.sum())
    out = np.empty((resamples, groups))
    axis_codes = np.empty((resamples, groups, len(AXES)), dtype=np.int16) if keep_axes else None
    if groups == 0:
        return ClusterBootstrap(out, np.zeros(0, dtype=np.int64), axis_codes)
    layout = resample_layout(codes, ranked, contributions, contributor)
    if resamples == 0:
        return ClusterBootstrap(out, layout.contributors, axis_codes)
    # Chunks bound the cells held per resample (the medians read each bag's pairs a run at a time). The
    # generator fills its draws in order, so the same seed gives the same resamples whatever the chunk size.
    largest = max(int(layout.cell_bounds[-1]), 1)
    chunk = max(1, min(resamples, CHUNK_CELLS // largest))
    for start in range(0, resamples, chunk):
        end = min(resamples, start + chunk)
        counts = resample_cell_counts(rng, layout.cell_bounds, end - start)
        out[start:end], adj = resampled_scores_and_axes(layout, counts, evidence_k)
        if axis_codes is not None:
            axis_codes[start:end] = quantise(log_values(adj))
    return ClusterBootstrap(out, layout.contributors, axis_codes)


def t_factor(contributors: IntArray | int) -> FloatArray:
    """t(0.975, K - 1) * sqrt(K / (K - 1)) per K; NaN where K < 2 (no interval)."""
    from scipy import stats  # here, not at import: scipy.stats alone takes longer to import than Django

    k = np.asarray(contributors, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = stats.t.ppf(0.5 + INTERVAL_LEVEL / 2, k - 1) * np.sqrt(k / (k - 1))
    return np.where(k >= 2, factor, np.nan)


def spread(samples: FloatArray) -> FloatArray:
    """The sd of each column of samples (B - 1 in the divisor); NaN with fewer than two samples."""
    if samples.shape[0] < 2:
        return np.full(samples.shape[1:], np.nan)
    return np.asarray(np.std(samples, axis=0, ddof=1))


def cluster_t_interval(
    point: FloatArray, samples: FloatArray, contributors: IntArray, clip: tuple[float, float] | None = SCORE_RANGE
) -> tuple[FloatArray, FloatArray]:
    """point +- t(0.975, K - 1) * s * sqrt(K / (K - 1)), clipped; NaN bounds where K < 2 or s is undefined."""
    half = t_factor(contributors) * spread(samples)
    lo, hi = point - half, point + half
    if clip is not None:
        lo, hi = np.clip(lo, *clip), np.clip(hi, *clip)
    return lo, hi
