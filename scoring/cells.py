"""Scoring from cells: each cell's sums and latency histogram stand in for its cycles (scoring spec A2, B1).

A cell is the cycles of one contributor that share a day, a harness, their names and whether they are judged
(shapes.CELL_KEY). Everything the method computes is a sum over cells: A2's counts and sums, B2's counts and
shares, the bootstrap's and the leave-one-out's cells (which are unions of these), B3's trials and successes. The
one statistic that is not a sum, the weighted median of latmed, is kept exact by each cell's latency histogram:
its distinct latencies, each with the steps (a) of the cell's cycles at that latency. A weighted median reads only
the running weight at each distinct value, so merging equal values is exact.

The engine then runs unchanged on rows: a cell is one row with its sums, its contributor, day and names, and its
histogram entries are its latency pairs (scoring.judged.Contributions), as a cycle's one latency is the cycle's.
Every stage sees the same groups, cells, sums and bags as it would from the cycles, so the document equals
score_pool's on the cycles (tests/scoring/test_cells.py), while the rows grow with cells, and only the pairs
with distinct latencies.

Pure: numpy and pandas, no Django.
"""

from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from scoring.document import Prepared, ScoredPool, ScoringConfig, score_prepared
from scoring.enrich import enrich_document
from scoring.groupings import view_groupings
from scoring.judged import (
    NAME_COLUMNS,
    Contributions,
    JudgedCycles,
    Tallies,
    canonical_order,
    contributions,
    days_of,
    judged_in_scope,
    judged_mask,
    names_at,
    scope_mask,
)
from scoring.shapes import CELL_KEY, CELL_TALLIES, CYCLE_COLUMNS, SUMS, FloatArray, IntArray, S

NO_CYCLES = pd.DataFrame({name: pd.Series(dtype="object") for name in CYCLE_COLUMNS})


@dataclass(frozen=True)
class Cells:
    """Cycles summed per cell: `frame` has one row per cell (CELL_KEY, SUMS, CELL_TALLIES columns), and the
    latency histograms are (bag_cell, bag_latency, bag_weight) triples, bag_cell a row of `frame`."""

    frame: pd.DataFrame
    bag_cell: IntArray
    bag_latency: FloatArray
    bag_weight: IntArray

    @property
    def cycles(self) -> int:
        """The cycles summed, judged or not."""
        return int(self.frame["hjudged"].sum()) if len(self.frame) else 0


def cells_of_cycles(cycles: pd.DataFrame) -> Cells:
    """Cells from a frame of cycles (scoring.CYCLE_COLUMNS, and harness when it has one): the reference the
    service's SQL is tested against. Unjudged cycles form cells of their own that only count them (hjudged)."""
    frame = cycles if "harness" in cycles.columns else cycles.assign(harness="")
    judged = judged_mask(frame)
    rows = frame[judged]
    rows = rows.iloc[
        canonical_order(rows["contributor"].to_numpy(np.int64), days_of(rows), rows["cycle_key"].to_numpy(object))
    ]
    engine = judged_in_scope(rows)  # rows already in canonical order: the engine keeps it
    part, tally = contributions(engine), engine.tallies
    key = [name for name in CELL_KEY if name != "judged"]
    counted = {name: part.columns[S[name]] for name in SUMS} | {
        "pending": tally.pending,
        "unshippable": tally.unshippable,
        "shipJudgedShipped": tally.ship_judged_shipped,
        "x_latency": _per_row(part.pair_row, part.pair_latency, len(rows), -1.0),
        "x_weight": _per_row(part.pair_row, part.pair_steps, len(rows), 0),
    }
    scored = rows[key].reset_index(drop=True).assign(judged=True, **counted)
    unjudged = frame.loc[~judged, key].reset_index(drop=True)
    unscored = unjudged.assign(judged=False, **{name: 0.0 for name in counted}).assign(hjudged=1.0, x_latency=-1.0)
    keyed = pd.concat([scored, unscored], ignore_index=True).astype({"day": str})
    grouped = keyed.groupby(list(CELL_KEY), sort=True, dropna=False)
    cell_frame = grouped[[*SUMS, *CELL_TALLIES]].sum().reset_index()
    bag = keyed.assign(x_cell=grouped.ngroup().to_numpy())[keyed["x_latency"].to_numpy() >= 0]
    histogram = bag.groupby(["x_cell", "x_latency"], sort=True)["x_weight"].sum().reset_index()
    cell_frame["day"] = pd.to_datetime(cell_frame["day"]).dt.date
    return Cells(
        frame=cell_frame,
        bag_cell=histogram["x_cell"].to_numpy(dtype=np.int64),
        bag_latency=histogram["x_latency"].to_numpy(dtype=np.float64),
        bag_weight=histogram["x_weight"].to_numpy(dtype=np.int64),
    )


def _per_row(pair_row: IntArray, values: FloatArray | IntArray, rows: int, missing: float) -> FloatArray:
    """A cycle's one latency pair back on its row (`missing` for a cycle without one)."""
    out = np.full(rows, missing, dtype=np.float64)
    out[pair_row] = values
    return out


def prepare_cells(
    cells: Cells,
    config: ScoringConfig,
    since: date | None = None,
    until: date | None = None,
    harness: str | None = None,
) -> Prepared:
    """The engine's rows from cells: one row per judged cell in scope, its histogram entries as its pairs."""
    frame = cells.frame
    days = days_of(frame)
    keep = frame["judged"].to_numpy(dtype=np.bool_) & scope_mask(days, since, until)
    if harness is not None:
        keep &= frame["harness"].to_numpy(dtype=object) == harness
    contributor_all = frame["contributor"].to_numpy(dtype=np.int64)
    kept = np.flatnonzero(keep)
    kept = kept[np.lexsort((days[kept], contributor_all[kept]))]
    row_of_cell = np.full(len(frame), -1, dtype=np.int64)
    row_of_cell[kept] = np.arange(len(kept))
    in_bag = keep[cells.bag_cell]
    contributor = contributor_all[kept]
    ids, contributor_code = np.unique(contributor, return_inverse=True)

    def cell_column(name: str) -> IntArray:
        return frame[name].to_numpy(dtype=np.int64)[kept]

    by_column = np.empty((len(SUMS), len(kept)))
    for s, name in enumerate(SUMS):
        by_column[s] = frame[name].to_numpy(dtype=np.float64)[kept]
    judged = JudgedCycles(
        contributor=contributor,
        contributor_code=contributor_code.ravel().astype(np.int64),
        contributors=len(ids),
        day=days[kept],
        numbers={},
        names={name: names_at(frame[name], kept) for name in NAME_COLUMNS},
        tallies=Tallies(
            cycles=cell_column("hjudged"),
            ship_judged=cell_column("hshipJudged"),
            shipped=cell_column("hshipped"),
            pending=cell_column("pending"),
            unshippable=cell_column("unshippable"),
            ship_judged_shipped=cell_column("shipJudgedShipped"),
        ),
    )
    part = Contributions.of_pairs(
        by_column, row_of_cell[cells.bag_cell[in_bag]], cells.bag_latency[in_bag], cells.bag_weight[in_bag]
    )
    return Prepared(judged, part, view_groupings(judged, config.family_pattern))


def score_cells(
    cells: Cells | Prepared,
    config: ScoringConfig,
    *,
    since: date | None = None,
    until: date | None = None,
    generated: str | None = None,
    enrich: bool = True,
    keep_axes: bool = False,
) -> ScoredPool:
    """score_pool and enrich_document from cells: the same document, samples included (with keep_axes, the
    per-axis ones too), as from the cycles. Given cells already prepared (prepare_cells with the same window),
    it scores those: a caller can let the cells go first."""
    prepared = prepare_cells(cells, config, since, until) if isinstance(cells, Cells) else cells
    scored = score_prepared(prepared, config, since=since, until=until, generated=generated, keep_axes=keep_axes)
    if enrich:
        enrich_document(scored.document, NO_CYCLES, config, since=since, until=until, prepared=prepared)
    return scored
