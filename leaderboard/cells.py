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
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import numpy as np
import pandas as pd
from django.db.models import Count, F, FloatField, Q, Sum
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.utils import timezone

from core.backend import bulk_statements, copy_out, one_snapshot
from ingest.models import Cell, CellQuerySet, Contributor
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


def _pool(
    since: dt.date | None, until: dt.date | None, harness: str | None, contributors: list[int] | None = None
) -> CellQuerySet:
    cells = Cell.objects.in_pool()
    if contributors is not None:
        cells = cells.filter(contributor_id__in=contributors)
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


def _stored_cells(
    since: dt.date | None, until: dt.date | None, harness: str | None, contributors: list[int] | None = None
) -> tuple[Cells, frozenset[int]]:
    # The exact decimal sums leave as floats: the engine sums in float64, as from the cycles.
    floats = {f"x_{name}": Cast(F(name), FloatField()) for name in _FLOAT_SUMS}
    rows = _read(
        _pool(since, until, harness, contributors)
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
    return _folded(cells, counted, decisions)


def _folded(cells: Cells, counted: frozenset[int], decisions: NameDecisions | None) -> Cells:
    rule = public_name_rule(counted=counted, decisions=name_decisions() if decisions is None else decisions)
    return Cells(
        frame=fold_unshown_names(cells.frame, rule),
        bag_cell=cells.bag_cell,
        bag_latency=cells.bag_latency,
        bag_weight=cells.bag_weight,
    )


# ---------------------------------------------------------------- what changed since the last whole read


# Contributors seen or retracted this long before a whole read began are read again after it: longer than any
# contribution's transaction, and than the clocks of the web and worker machines differ.
CHANGED_MARGIN: Final = dt.timedelta(minutes=10)


@dataclass(frozen=True)
class _WholeRead:
    """The pool's cells as this process last read them whole (names not folded), and who counted then."""

    cells: Cells
    counted: frozenset[int]
    # Contributors seen or retracted from this moment on may have cells the read did not see.
    changed_from: dt.datetime


_last_whole: _WholeRead | None = None


def remember_whole_read() -> None:
    """Read the pool's cells whole (PostgreSQL's) and keep them in this process, for changed_pool_cells: the
    names are folded when they are used, not here."""
    global _last_whole
    started = timezone.now()
    cells, counted = _stored_cells(None, None, None)
    _last_whole = _WholeRead(cells, counted, started - CHANGED_MARGIN)


class ChangedCells(NamedTuple):
    cells: Cells
    whole: bool  # read whole: no read to start from, or the merged cells did not add up
    changed: bool  # anyone's cells may differ from the last whole read's (True when read whole)


def changed_pool_cells(*, decisions: NameDecisions | None = None) -> ChangedCells:
    """The pool's cells as pool_cells reads them, read again only for the contributors whose cells may have
    changed since this process last read them whole (remember_whole_read); the rest are that read's.
    Whole when there is no such read, or when the merged cells do not add up to the stored ones.

    A contribution changes only its own install's cells, so after one contribution this reads that
    contributor's cells, not the pool's. For the points the worker publishes first: the whole snapshot
    that follows them reads the pool whole.
    """
    whole = _last_whole
    if whole is None or not bulk_statements():
        return ChangedCells(pool_cells(decisions=decisions), whole=True, changed=True)
    with one_snapshot():
        changed = list(
            Contributor.objects.filter(Q(last_seen__gte=whole.changed_from) | Q(retracted_at__gte=whole.changed_from))
            .values_list("id", flat=True)
            .order_by()
        )
        cells, counted = whole.cells, whole.counted
        if changed:  # nobody changed: the pool is the last whole read's (a scheduled look, most often)
            fresh, fresh_counted = _stored_cells(None, None, None, changed)
            cells, counted = _merged(cells, fresh, changed), (counted - set(changed)) | fresh_counted
        stored = Cell.objects.in_pool().aggregate(cells=Count("id"), cycles=Sum("hjudged"))
    if len(cells.frame) != stored["cells"] or cells.cycles != (stored["cycles"] or 0):
        # Cells changed some other way (an operator's command, a migration): read them whole.
        return ChangedCells(pool_cells(decisions=decisions), whole=True, changed=True)
    return ChangedCells(_folded(cells, counted, decisions), whole=False, changed=bool(changed))


def _merged(old: Cells, fresh: Cells, changed: list[int]) -> Cells:
    """`old` with the cells of `changed` replaced by `fresh` (those contributors' cells, read now)."""
    keep = ~old.frame["contributor"].isin(changed).to_numpy()
    kept = np.flatnonzero(keep)
    renumbered = np.full(len(keep), -1, dtype=np.int64)
    renumbered[kept] = np.arange(len(kept), dtype=np.int64)
    in_kept = keep[old.bag_cell]
    return Cells(
        frame=pd.concat([old.frame.iloc[kept], fresh.frame], ignore_index=True)
        if len(fresh.frame)
        else old.frame.iloc[kept].reset_index(drop=True),
        bag_cell=np.concatenate([renumbered[old.bag_cell[in_kept]], fresh.bag_cell + len(kept)]),
        bag_latency=np.concatenate([old.bag_latency[in_kept], fresh.bag_latency]),
        bag_weight=np.concatenate([old.bag_weight[in_kept], fresh.bag_weight]),
    )


def forget_whole_read() -> None:
    """Drop this process's last whole read: before a whole snapshot's scoring (its peak), in a worker's parent
    once its pool has forked, and in tests."""
    global _last_whole
    _last_whole = None


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
