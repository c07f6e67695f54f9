"""The scoring input as cells (scoring.cells), read from the cells PostgreSQL keeps as cycles arrive.

The recompute and the day windows read cells instead of cycles: ingest.models.Cell holds each cell's sums (spec
A2), counts by ship state and latency histogram, kept by the database in the statements that change cycles. So
what a recompute reads grows with cells and their latency entries, not with cycles, and involves no GROUP BY.
The names no ranking may show are folded into "(other)" here, from the same (contributor, name) pairs the
cycles would give: unjudged cycles form cells of their own for that, and for the count of cycles. The embedded
SQLite default keeps no cells: there they are summed from the cycles.
"""

import datetime as dt
import hashlib
import io
from typing import Any, Final

import numpy as np
import pandas as pd
from django.db.models import F, FloatField
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast

from core.backend import bulk_statements, copy_out
from ingest.models import Cell, CellQuerySet
from leaderboard.public_names import NameDecisions, counted_contributor, name_decisions, public_name_rule
from leaderboard.selectors import cycles_frame
from scoring import ScoringConfig
from scoring.cells import Cells, cells_of_cycles
from scoring.public_labels import fold_unshown_names
from scoring.shapes import CELL_KEY, CELL_TALLIES, SUMS

_TALLIED: Final = (*SUMS, *CELL_TALLIES)
_TEXT_COLUMNS: Final = frozenset(CELL_KEY) - {"contributor", "day", "judged"}
_FLOAT_SUMS: Final = frozenset({"hhrsShip", "hcostShip"})
# The cells query's columns, in order (x_counted: whether the contributor counts toward a name).
_CELL_COLUMNS: Final = (*CELL_KEY, "x_counted", *_TALLIED, "x_entries", "x_latencies", "x_weights")


def _pool(since: dt.date | None, until: dt.date | None, harness: str | None) -> CellQuerySet:
    cells = Cell.objects.in_pool()
    if harness is not None:
        cells = cells.filter(harness=harness)
    if since is not None:
        cells = cells.filter(day__gte=since)
    if until is not None:
        cells = cells.filter(day__lte=until)
    return cells


# Each cell's latency histogram as its count of entries and two texts of one number a line: float8's text is its
# exact shortest form, and all cells' lines are parsed at once. In no order: the engine sorts all pairs by
# latency once (scoring.judged.Contributions).
_ENTRIES: Final = RawSQL("cardinality(latencies)", ())
_LATENCIES: Final = RawSQL("array_to_string(latencies, E'\\n')", ())
_WEIGHTS: Final = RawSQL("array_to_string(latency_weights, E'\\n')", ())


def _read(queryset: Any) -> pd.DataFrame:
    """The cells query's rows as a frame of text columns, through COPY (CSV)."""
    sql, params = queryset.query.sql_with_params()
    buffer = io.BytesIO()
    for block in copy_out(sql, params, options="FORMAT csv"):
        buffer.write(block)
    buffer.seek(0)
    return pd.read_csv(
        buffer,
        header=None,
        names=list(_CELL_COLUMNS),
        dtype=dict.fromkeys([*_TEXT_COLUMNS, "judged", "x_counted", "x_latencies", "x_weights"], str),
        keep_default_na=False,
    )


def _numbers(texts: "pd.Series[str]", dtype: type[np.float64] | type[np.int64]) -> np.ndarray[Any, Any]:
    """Texts of one number a line, parsed by pandas' C reader as one: no Python object per number."""
    lines = "\n".join(text for text in texts.tolist() if text)
    if not lines:
        return np.zeros(0, dtype=dtype)
    return pd.read_csv(io.StringIO(lines), header=None, names=["x"], dtype={"x": dtype})["x"].to_numpy()


def _stored_cells(since: dt.date | None, until: dt.date | None, harness: str | None) -> tuple[Cells, frozenset[int]]:
    # The exact decimal sums leave as floats: the engine sums in float64, as from the cycles.
    floats = {f"x_{name}": Cast(F(name), FloatField()) for name in _FLOAT_SUMS}
    rows = _read(
        _pool(since, until, harness)
        .annotate(
            x_counted=counted_contributor("contributor__"),
            x_entries=_ENTRIES,
            x_latencies=_LATENCIES,
            x_weights=_WEIGHTS,
            **floats,
        )
        .values_list(
            *[name if name != "contributor" else "contributor_id" for name in CELL_KEY],
            "x_counted",
            *[f"x_{name}" if name in _FLOAT_SUMS else name for name in _TALLIED],
            "x_entries",
            "x_latencies",
            "x_weights",
        )
    )
    frame = pd.DataFrame(
        {
            "contributor": rows["contributor"].to_numpy(dtype=np.int64),
            "day": pd.to_datetime(rows["day"]).dt.date if len(rows) else pd.Series(dtype="object"),
            **{name: rows[name].astype(str) for name in CELL_KEY if name in _TEXT_COLUMNS},
            "judged": rows["judged"].to_numpy() == "t",
            **{name: rows[name].astype(np.float64 if name in _FLOAT_SUMS else np.int64) for name in _TALLIED},
        }
    )[[*CELL_KEY, *_TALLIED]]
    counted = frozenset(frame.loc[rows["x_counted"].to_numpy() == "t", "contributor"].unique().tolist())
    # Grouped by cell, in the order the cells were read.
    cells = Cells(
        frame=frame,
        bag_cell=np.repeat(np.arange(len(rows), dtype=np.int64), rows["x_entries"].to_numpy(dtype=np.int64)),
        bag_latency=_numbers(rows["x_latencies"], np.float64),
        bag_weight=_numbers(rows["x_weights"], np.int64),
    )
    return cells, counted


def pool_cells(
    *,
    since: dt.date | None = None,
    until: dt.date | None = None,
    decisions: NameDecisions | None = None,
    harness: str | None = None,
) -> Cells:
    """The pool's cells (of one harness when given), with the names no ranking may show folded into "(other)"
    by the senders within them, as cycles_frame folds them.

    `decisions`: the operator's on names, as the snapshot a window belongs to was made with; read when None.
    Elsewhere than PostgreSQL (the embedded SQLite default) the cells are summed from the cycles in Python.
    """
    if not bulk_statements():
        return cells_of_cycles(cycles_frame(since=since, until=until, decisions=decisions, harness=harness))
    cells, counted = _stored_cells(since, until, harness)
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
        # Each histogram entry hashed with its cell's row: one sort of one array, not a sort on three keys.
        entry = pd.util.hash_array(rows[cells.bag_cell] ^ pd.util.hash_array(cells.bag_latency.view(np.uint64)))
        entry = pd.util.hash_array(entry ^ pd.util.hash_array(cells.bag_weight.view(np.uint64)))
        digest.update(np.sort(entry).tobytes())
    return digest.hexdigest()
