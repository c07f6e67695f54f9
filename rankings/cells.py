"""The scoring input as cells (scoring.cells), summed by PostgreSQL in one query.

The recompute and the day windows read cells instead of cycles: one GROUP BY over the pool gives each cell's sums
(spec A2), its counts by ship state and its latency pairs (latmed and steps, merged here per distinct latmed into the
cell's histogram), so what crosses into Python grows with cells and distinct latencies, not with cycles. The
names no ranking may show are folded into "(other)" here, from the same (contributor, name) pairs the cycles
would give: unjudged cycles form cells of their own for that, and for the count of cycles.
"""

import datetime as dt
import hashlib
import io
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from core.backend import bulk_statements, copy_out
from ingest.selectors import pool_cycles
from rankings.public_names import NameDecisions, counted_contributor, name_decisions, public_name_rule
from rankings.selectors import cycles_frame
from scoring import ScoringConfig
from scoring.cells import Cells, cells_of_cycles
from scoring.public_labels import fold_unshown_names
from scoring.shapes import CELL_KEY, CELL_TALLIES, SUMS

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

# The pool query's columns, in the order it selects them (x_counted: whether the contributor counts toward a name).
_POOL_COLUMNS: Final = (
    "contributor",
    "day",
    "harness",
    "model",
    "effort",
    "planner_model",
    "planner_effort",
    "builder_model",
    "builder_effort",
    "human_turns",
    "assistant_steps",
    "edits",
    "edit_paths",
    "edit_errors",
    "cost_usd",
    "shipped",
    "active_hours",
    "verified",
    "intervened",
    "step_seconds_median",
    "ship_status",
    "x_counted",
)
_SHIPPED: Final = "shipped = 1"
# Each sum of A2 and each tally over a cell's cycles.
_PER_CYCLE: Final[dict[str, str]] = {
    "hjudged": "count(*)",
    "hshipJudged": "count(*) FILTER (WHERE ship_status = 0)",
    "hshipped": f"count(*) FILTER (WHERE {_SHIPPED})",
    "hshippedCosted": f"count(*) FILTER (WHERE {_SHIPPED} AND cost_usd > 0)",
    "huShip": f"coalesce(sum(human_turns) FILTER (WHERE {_SHIPPED}), 0)",
    "hhrsShip": f"coalesce(sum(active_hours) FILTER (WHERE {_SHIPPED}), 0)",
    "hcostShip": f"coalesce(sum(cost_usd) FILTER (WHERE {_SHIPPED}), 0)",
    "hone": f"count(*) FILTER (WHERE {_SHIPPED} AND (human_turns = 1 OR (planner_model <> '' AND human_turns <= 2)))",
    "hedits": "sum(edits)",
    "hteerr": "sum(edit_errors)",
    "hver": "count(*) FILTER (WHERE verified = 1)",
    "habort": "count(*) FILTER (WHERE intervened = 1)",
    "hu": "sum(human_turns)",
    "pending": "count(*) FILTER (WHERE ship_status = 1)",
    "unshippable": "count(*) FILTER (WHERE ship_status = 2)",
    "shipJudgedShipped": f"count(*) FILTER (WHERE ship_status = 0 AND {_SHIPPED})",
}
assert tuple(_PER_CYCLE) == (*SUMS, *CELL_TALLIES)
_IN_BAG: Final = "judged AND step_seconds_median >= 0"
_TEXT_COLUMNS: Final = frozenset(CELL_KEY) - {"contributor", "day", "judged"}
_FLOAT_SUMS: Final = frozenset({"hhrsShip", "hcostShip"})
# The columns the query returns, in order.
_CELL_COLUMNS: Final = (*CELL_KEY, "x_counted", *_PER_CYCLE, "x_levels", "x_histogram")


def _quoted(name: str) -> str:
    return f'"{name}"'


def _cells_sql(*, since: dt.date | None, until: dt.date | None) -> tuple[str, tuple[Any, ...]]:
    pool, params = (
        pool_cycles(since=since, until=until)
        .annotate(x_counted=counted_contributor("contributor__"))
        .values_list(*[name if name != "contributor" else "contributor_id" for name in _POOL_COLUMNS])
        .query.sql_with_params()
    )
    key = ", ".join(_quoted(name) for name in CELL_KEY)
    per_cell = ", ".join(f"{expression} AS {_quoted(name)}" for name, expression in _PER_CYCLE.items())
    # The histogram as "latency steps" pairs in one text list: one aggregate, and no sort inside the cell.
    # Every name in it is this module's own; the values are the pool query's parameters.
    sql = f"""
        WITH pool AS (
            SELECT *, (assistant_steps > 0 AND edits > 0 AND edit_paths = 1) AS judged
            FROM ({pool}) AS cycle ({", ".join(_POOL_COLUMNS)})
        )
        SELECT {key}, bool_or(x_counted), {per_cell},
               count(*) FILTER (WHERE {_IN_BAG}),
               string_agg(step_seconds_median::text || ' ' || assistant_steps::text, ' ') FILTER (WHERE {_IN_BAG})
        FROM pool GROUP BY {key}
    """  # noqa: S608
    return sql, params


def _read(sql: str, params: tuple[Any, ...]) -> pd.DataFrame:
    """The query's rows as a frame of text columns, through COPY (CSV)."""
    buffer = io.BytesIO()
    for block in copy_out(sql, params, options="FORMAT csv"):
        buffer.write(block)
    buffer.seek(0)
    return pd.read_csv(
        buffer,
        header=None,
        names=list(_CELL_COLUMNS),
        dtype=dict.fromkeys([*_TEXT_COLUMNS, "judged", "x_counted", "x_histogram"], str),
        keep_default_na=False,  # type: ignore[arg-type]
    )


def _histograms(cell: IntArray, latency: FloatArray, weight: IntArray) -> tuple[IntArray, FloatArray, IntArray]:
    """Each cell's (latency, steps) pairs merged per distinct latency: a weighted median reads only the running
    weight at each distinct value, so the merge is exact, and it shrinks the bags where latencies repeat."""
    order = np.lexsort((latency, cell))
    cell, latency = cell[order], latency[order]
    starts = np.flatnonzero(np.r_[True, (np.diff(cell) != 0) | (np.diff(latency) != 0)]) if len(cell) else order
    return cell[starts], latency[starts], np.add.reduceat(weight[order], starts) if len(cell) else weight


def _cells_of_rows(rows: pd.DataFrame) -> tuple[Cells, frozenset[int]]:
    levels = rows["x_levels"].to_numpy(dtype=np.int64)
    # Pairs "latency weight" in one list; weights are whole numbers far below 2^53, exact as floats.
    pairs = np.array(" ".join(rows["x_histogram"].tolist()).split(), dtype=np.float64).reshape(-1, 2)
    bag_cell, latency, weight = _histograms(
        np.repeat(np.arange(len(rows), dtype=np.int64), levels), pairs[:, 0].copy(), pairs[:, 1].astype(np.int64)
    )
    frame = pd.DataFrame(
        {
            "contributor": rows["contributor"].to_numpy(dtype=np.int64),
            "day": pd.to_datetime(rows["day"]).dt.date if len(rows) else pd.Series(dtype="object"),
            **{name: rows[name].astype(str) for name in CELL_KEY if name in _TEXT_COLUMNS},
            "judged": rows["judged"].to_numpy() == "t",
            **{name: rows[name].astype(np.float64 if name in _FLOAT_SUMS else np.int64) for name in _PER_CYCLE},
        }
    )[[*CELL_KEY, *_PER_CYCLE]]
    counted = frozenset(frame.loc[rows["x_counted"].to_numpy() == "t", "contributor"].unique().tolist())
    cells = Cells(
        frame=frame,
        bag_cell=bag_cell,
        bag_latency=latency,
        bag_weight=weight,
    )
    return cells, counted


def pool_cells(
    *, since: dt.date | None = None, until: dt.date | None = None, decisions: NameDecisions | None = None
) -> Cells:
    """The pool's cells in one query, with the names no ranking may show folded into "(other)".

    `decisions`: the operator's on names, as the snapshot a window belongs to was made with; read when None.
    Elsewhere than PostgreSQL (the embedded SQLite default) the cells are summed from the cycles in Python.
    """
    if not bulk_statements():
        return cells_of_cycles(cycles_frame(since=since, until=until, decisions=decisions))
    cells, counted = _cells_of_rows(_read(*_cells_sql(since=since, until=until)))
    rule = public_name_rule(counted=counted, decisions=name_decisions() if decisions is None else decisions)
    return Cells(
        frame=fold_unshown_names(cells.frame, rule),
        bag_cell=cells.bag_cell,
        bag_latency=cells.bag_latency,
        bag_weight=cells.bag_weight,
    )


def cells_fingerprint(cells: Cells, config: ScoringConfig) -> str:
    """A digest of what a recompute would score; equal digests give equal rankings."""
    digest = hashlib.sha256(repr(config).encode())
    if len(cells.frame):
        # Sorted row hashes: the same cells in another order are the same pool.
        rows = pd.util.hash_pandas_object(cells.frame, index=False).to_numpy()
        digest.update(np.sort(rows).tobytes())
        bag = np.stack((rows[cells.bag_cell], cells.bag_latency.view(np.uint64), cells.bag_weight.view(np.uint64)))
        digest.update(bag[:, np.lexsort(bag[::-1])].tobytes())
    return digest.hexdigest()
