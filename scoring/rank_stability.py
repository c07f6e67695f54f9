"""The rank stability caveat: each ranked group's point rank with every contributor left out in turn.

For every ranked group, the range of its point rank (1 + the ranked groups with a strictly higher scoreAdj) when
each contributor with judged cycles in scope is left out in turn. Leaving one out is not a new recompute: its
(group, contributor) sums are subtracted from the group totals, the groups that fall below the ranking threshold
leave the ranking and the pool, and the pool and finishing run once on the reduced sums of every leave-one-out at
once. The latency medians without a contributor are exact (scoring.reduced_medians), and no bag is ever rebuilt.

Pure: numpy, no Django.
"""

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from scoring.document import Prepared, ScoringConfig
from scoring.finishing import finish_adjusted_score
from scoring.reduced_medians import Removal, reduced_medians
from scoring.scorecard import PointScorecard, group_bags, pool_bag_pairs
from scoring.shapes import SUMS, A, FloatArray, IntArray, S
from scoring.sums import evidence, pool_axes, raw_axes

# Leave-one-out runs x ranked groups finished at once; a few float arrays of ten times this size are alive.
STABILITY_CHUNK_CELLS = 400_000


@dataclass(frozen=True)
class _LeaveOneOut:
    """A view's ranked groups with every contributor left out in turn (C runs, R ranked groups)."""

    card: PointScorecard
    ranked_ids: IntArray  # group codes of the R ranked groups
    totals: FloatArray  # (R, S)
    cell_run: IntArray  # per (group, contributor) cell with cycles: its contributor, i.e. its run
    cell_group: IntArray  # ... and its ranked group
    cell_sums: FloatArray  # (cells, S)
    cell_latency: FloatArray  # the group's latency median without that contributor
    pool_latency: FloatArray  # (C,) the pool's latency median in each run
    contributors: int


# Up to this many (group, contributor) cells, distinct cells are found by counting rather than sorting.
_DENSE_CELLS = 20_000_000


def _distinct(keys: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """np.unique(keys, return_inverse=True) for keys in [0, size), by counting when size allows."""
    if size > _DENSE_CELLS:
        values, inverse = np.unique(keys, return_inverse=True)
        return values, inverse.ravel().astype(np.int64)
    present = np.zeros(size, dtype=np.bool_)
    present[keys] = True
    values = np.flatnonzero(present)
    index = np.zeros(size, dtype=np.int64)
    index[values] = np.arange(len(values))
    return values, index[keys]


def _leave_one_out(prepared: Prepared, view: str, config: ScoringConfig) -> _LeaveOneOut:
    grouping = prepared.groupings[view]  # type: ignore[index]
    contributions = prepared.contributions
    who = prepared.judged.contributor_code
    contributors = prepared.judged.contributors
    card = prepared.card(view, config)
    ranked_ids = np.flatnonzero(card.ranked).astype(np.int64)
    groups = len(ranked_ids)
    position = np.full(len(grouping.labels), -1, dtype=np.int64)
    position[ranked_ids] = np.arange(groups)
    codes = grouping.codes
    ranked_group = np.where(codes >= 0, position[np.maximum(codes, 0)], -1)
    member = np.flatnonzero(ranked_group >= 0)

    cell_key = ranked_group[member] * contributors + who[member]
    cells, cell_of_cycle = _distinct(cell_key, groups * contributors)
    cell_sums = np.empty((len(cells), len(SUMS)))
    for s in range(len(SUMS)):
        cell_sums[:, s] = np.bincount(cell_of_cycle, weights=contributions.columns[s][member], minlength=len(cells))
    cell_group, cell_run = cells // contributors, cells % contributors
    totals = card.sums[ranked_ids]

    # Each group's latency without the cell's contributor: one query per cell whose contributor has pairs there.
    # Pair-sized arrays (~70 MB each at 10M cycles) are let go as soon as what they give is made: one bag layout
    # at a time, and only the arrays reduced_medians reads alive while it runs.
    bag, bag_bounds = group_bags(codes, card.ranked, contributions)
    bag_rows = contributions.pair_row[bag]
    bag_cell = ranked_group[bag_rows] * contributors + who[bag_rows]
    del bag_rows
    cell_latency = card.raw[ranked_ids[cell_group], A["lat"]].copy()
    with_pairs = np.flatnonzero(np.isin(cells, _distinct(bag_cell, groups * contributors)[0], assume_unique=True))
    if len(with_pairs):
        bag_latency, bag_steps = contributions.pair_latency[bag], contributions.pair_steps[bag]
        del bag
        ones = np.ones(len(with_pairs), dtype=np.int64)
        cell_latency[with_pairs] = reduced_medians(
            bag_latency,
            bag_steps,
            bag_bounds,
            cell_group[with_pairs],
            Removal(query=np.arange(len(with_pairs)), kind=0 * ones, code=cells[with_pairs], sign=ones),
            (bag_cell,),
        )
        del bag_latency, bag_steps
    del bag_cell

    # The pool's latency in each run: all ranked groups' pairs together, less the contributor's, less the groups
    # that the contributor's leaving drops below the ranking threshold (their other contributors' pairs).
    pool = pool_bag_pairs(codes, card.ranked, contributions)
    pool_rows = contributions.pair_row[pool]
    pool_group, pool_who = ranked_group[pool_rows], who[pool_rows]
    del pool_rows
    pool_latency_pairs, pool_steps = contributions.pair_latency[pool], contributions.pair_steps[pool]
    del pool
    dropped = np.flatnonzero(totals[cell_group, S["hjudged"]] - cell_sums[:, S["hjudged"]] < config.min_judged)
    # Only the cells whose leaving drops their group are ever left out as cells: only their pairs get that class.
    pool_cell = pool_group * contributors + pool_who
    pool_cell = np.where(np.isin(pool_cell, cells[dropped]), pool_cell, -1)
    runs = np.arange(contributors)
    ones, dropped_ones = np.ones(contributors, dtype=np.int64), np.ones(len(dropped), dtype=np.int64)
    pool_latency = reduced_medians(
        pool_latency_pairs,
        pool_steps,
        np.array([0, len(pool_steps)], dtype=np.int64),
        np.zeros(contributors, dtype=np.int64),
        Removal(
            query=np.concatenate((runs, cell_run[dropped], cell_run[dropped])),
            kind=np.concatenate((0 * ones, dropped_ones, 2 * dropped_ones)),
            code=np.concatenate((runs, cell_group[dropped], cells[dropped])),
            sign=np.concatenate((ones, dropped_ones, -dropped_ones)),
        ),
        (pool_who, pool_group, pool_cell),
    )
    return _LeaveOneOut(
        card=card,
        ranked_ids=ranked_ids,
        totals=totals,
        cell_run=cell_run,
        cell_group=cell_group,
        cell_sums=cell_sums,
        cell_latency=cell_latency,
        pool_latency=pool_latency,
        contributors=contributors,
    )


def _run_chunks(runs: int, groups: int) -> Iterator[tuple[int, int]]:
    size = max(1, STABILITY_CHUNK_CELLS // max(groups, 1))
    for start in range(0, runs, size):
        yield start, min(runs, start + size)


def leave_one_out_ranks(prepared: Prepared, view: str, config: ScoringConfig) -> tuple[list[str], IntArray]:
    """The ranked groups' labels and their (C, R) point ranks with each contributor left out; 0 = not ranked."""
    loo = _leave_one_out(prepared, view, config)
    labels = [loo.card.grouping.labels[g] for g in loo.ranked_ids]
    groups, runs = len(loo.ranked_ids), loo.contributors
    ranks = np.zeros((runs, groups), dtype=np.int64)
    if groups == 0:
        return labels, ranks
    base_latency = loo.card.raw[loo.ranked_ids, A["lat"]]
    for start, end in _run_chunks(runs, groups):
        size = end - start
        sums = np.broadcast_to(loo.totals, (size, groups, len(SUMS))).copy()
        latency = np.broadcast_to(base_latency, (size, groups)).copy()
        mine = np.flatnonzero((loo.cell_run >= start) & (loo.cell_run < end))
        run, group = loo.cell_run[mine] - start, loo.cell_group[mine]
        sums[run, group] -= loo.cell_sums[mine]
        latency[run, group] = loo.cell_latency[mine]
        ranked = sums[..., S["hjudged"]] >= config.min_judged
        pool = pool_axes(np.where(ranked[..., None], sums, 0.0), loo.pool_latency[start:end])
        with np.errstate(all="ignore"):
            scores = finish_adjusted_score(raw_axes(sums, latency), evidence(sums), pool[:, None, :], config.evidence_k)
        # Scores lie in [0, 100]: -1 keeps an unranked group below every ranked one.
        scores = np.where(ranked, scores, -1.0)
        for r in range(size):
            ordered = np.sort(scores[r])
            higher = groups - np.searchsorted(ordered, scores[r], side="right")
            ranks[start + r] = np.where(ranked[r], 1 + higher, 0)
    return labels, ranks


def rank_ranges(prepared: Prepared, view: str, config: ScoringConfig) -> dict[str, tuple[int, int]]:
    """Per ranked group, (best, worst) point rank over leaving each contributor out; absent if never ranked."""
    labels, ranks = leave_one_out_ranks(prepared, view, config)
    out: dict[str, tuple[int, int]] = {}
    for i, label in enumerate(labels):
        column = ranks[:, i]
        column = column[column > 0]
        if len(column):
            out[label] = (int(column.min()), int(column.max()))
    return out
