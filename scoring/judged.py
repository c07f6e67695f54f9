"""From stored cycles to judged cycles in scope, in canonical order, and their contributions (A1, A2)."""

from dataclasses import dataclass
from datetime import date
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from scoring.shapes import (
    CYCLE_COLUMNS,
    SHIP_JUDGED,
    SHIP_PENDING,
    SHIP_UNSHIPPABLE,
    SUMS,
    BoolArray,
    FloatArray,
    IntArray,
    S,
)

_EMPTY_DAY = np.array([], dtype="datetime64[D]")


def missing_columns(cycles: pd.DataFrame) -> list[str]:
    return [name for name in CYCLE_COLUMNS if name not in cycles.columns]


def days_of(cycles: pd.DataFrame) -> npt.NDArray[np.datetime64]:
    """The `day` column as datetime64[D], whether it holds dates, datetimes or strings."""
    if len(cycles) == 0:
        return _EMPTY_DAY
    return np.asarray(pd.to_datetime(cycles["day"]).to_numpy(dtype="datetime64[ns]").astype("datetime64[D]"))


def judged_mask(cycles: pd.DataFrame) -> BoolArray:
    """A1: a cycle is judged when a > 0, tedits > 0 and tpaths = 1."""
    return np.asarray(
        (cycles["assistant_steps"].to_numpy() > 0)
        & (cycles["edits"].to_numpy() > 0)
        & (cycles["edit_paths"].to_numpy() == 1)
    )


def scope_mask(days: npt.NDArray[np.datetime64], since: date | None, until: date | None) -> BoolArray:
    """Days inside [since, until], both inclusive; an open end is unbounded."""
    mask = np.ones(len(days), dtype=np.bool_)
    if since is not None:
        mask &= days >= np.datetime64(since, "D")
    if until is not None:
        mask &= days <= np.datetime64(until, "D")
    return mask


def _key_words(cycle_keys: npt.NDArray[Any]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """A cycle key (16 hex digits) as two big-endian words: they sort as the keys do, fast."""
    fixed = np.asarray(cycle_keys, dtype="S16")
    words = fixed.view(">u8").reshape(len(fixed), 2) if len(fixed) else np.zeros((0, 2), dtype=">u8")
    return words[:, 0].astype(np.uint64), words[:, 1].astype(np.uint64)


def canonical_order(contributor: IntArray, days: npt.NDArray[np.datetime64], cycle_keys: npt.NDArray[Any]) -> IntArray:
    """The positions of cycles sorted by (contributor, day, cycle_key)."""
    high, low = _key_words(cycle_keys)
    return np.lexsort((low, high, days, contributor)).astype(np.int64)


@dataclass(frozen=True)
class Names:
    """A text column as codes into its sorted distinct values (so codes never depend on row order)."""

    codes: IntArray
    values: list[str]

    def nonempty(self) -> BoolArray:
        filled = np.array([value != "" for value in self.values], dtype=np.bool_)
        return filled[self.codes] if len(self.values) else np.zeros(len(self.codes), dtype=np.bool_)


def names_at(column: pd.Series, rows: IntArray) -> Names:
    if column.hasnans:  # a missing name is an empty one, as the contract stores it
        column = column.fillna("")
    codes, uniques = pd.factorize(column, sort=True)
    return Names(codes=np.asarray(codes, dtype=np.int64)[rows], values=[str(u) for u in uniques])


@dataclass(frozen=True)
class Tallies:
    """Per row, the judged cycles it stands for: in all and by ship state (for a row of one cycle, 0 or 1 each).

    Rows are cycles when the engine reads cycles, and cells when it reads cells (scoring.cells); counting
    through these, never through rows, keeps every count the same either way.
    """

    cycles: IntArray
    ship_judged: IntArray  # tshipe = 0
    shipped: IntArray  # tship = 1
    pending: IntArray  # tshipe = 1
    unshippable: IntArray  # tshipe = 2
    ship_judged_shipped: IntArray  # tshipe = 0 and tship = 1: B3's successes


def cycle_tallies(ship_status: npt.NDArray[Any], shipped: npt.NDArray[Any]) -> Tallies:
    def flag(mask: npt.NDArray[np.bool_]) -> IntArray:
        return mask.astype(np.int64)

    judged, ships = ship_status == SHIP_JUDGED, shipped == 1
    return Tallies(
        cycles=np.ones(len(ship_status), dtype=np.int64),
        ship_judged=flag(judged),
        shipped=flag(ships),
        pending=flag(ship_status == SHIP_PENDING),
        unshippable=flag(ship_status == SHIP_UNSHIPPABLE),
        ship_judged_shipped=flag(judged & ships),
    )


@dataclass(frozen=True)
class JudgedCycles:
    """The judged cycles in scope as arrays, in canonical order (contributor, day, cycle_key).

    The canonical order makes everything downstream, the bootstrap included, independent
    of the order the caller's rows came in.
    """

    contributor: IntArray
    contributor_code: IntArray  # 0..contributors-1, for counting per group
    contributors: int
    day: npt.NDArray[np.datetime64]
    numbers: dict[str, npt.NDArray[Any]]  # the numeric columns, by stored name
    names: dict[str, Names]  # model, effort and the planner's and builder's model and effort
    tallies: Tallies

    def __len__(self) -> int:
        return len(self.contributor)


NAME_COLUMNS: Final = ("model", "effort", "planner_model", "planner_effort", "builder_model", "builder_effort")
# The numeric columns the sums read: every cycle column but the identity, the day, the names and the
# path flag (A1 reads that one, and a judged cycle always has it).
NUMBER_COLUMNS: Final = tuple(
    column
    for column in CYCLE_COLUMNS
    if column not in ("contributor", "cycle_key", "day", "edit_paths") and column not in NAME_COLUMNS
)


def judged_in_scope(cycles: pd.DataFrame, since: date | None = None, until: date | None = None) -> JudgedCycles:
    """A1: the judged cycles whose day is in [since, until]."""
    absent = missing_columns(cycles)
    if absent:
        raise ValueError(f"cycles lack the columns {absent}")
    days = days_of(cycles)
    keep = np.flatnonzero(judged_mask(cycles) & scope_mask(days, since, until))
    contributor = cycles["contributor"].to_numpy(dtype=np.int64)[keep]
    order = canonical_order(contributor, days[keep], cycles["cycle_key"].to_numpy(dtype=object)[keep])
    rows = keep[order]
    ids, contributor_code = np.unique(contributor[order], return_inverse=True)
    numbers = {name: cycles[name].to_numpy()[rows] for name in NUMBER_COLUMNS}
    return JudgedCycles(
        contributor=contributor[order],
        contributor_code=contributor_code.ravel().astype(np.int64),
        contributors=len(ids),
        day=days[rows],
        numbers=numbers,
        names={name: names_at(cycles[name], rows) for name in NAME_COLUMNS},
        tallies=cycle_tallies(numbers["ship_status"], numbers["shipped"]),
    )


@dataclass(frozen=True)
class Contributions:
    """What each judged row adds to its group's sums (S x N), and the rows' latency pairs (A3's bags).

    A row is one cycle, or one cell of cycles (scoring.cells): a cycle has at most one latency pair, a cell one
    per distinct latency of its histogram. The pairs are sorted by latency once for all views, ties in the order
    they were given (the rows' canonical order).
    """

    columns: FloatArray  # (S, N) laid out by sum, for bincounts and segmented sums
    pair_row: IntArray  # (P,) the row each latency pair belongs to
    pair_latency: FloatArray  # (P,) latmed, ascending
    pair_steps: IntArray  # (P,) a: the pair's weight

    @classmethod
    def of_pairs(
        cls, columns: FloatArray, pair_row: IntArray, pair_latency: FloatArray, pair_steps: IntArray
    ) -> "Contributions":
        order = np.argsort(pair_latency, kind="stable")
        return cls(
            columns=columns,
            pair_row=np.asarray(pair_row, dtype=np.int64)[order],
            pair_latency=np.asarray(pair_latency, dtype=np.float64)[order],
            pair_steps=np.asarray(pair_steps, dtype=np.int64)[order],
        )

    @classmethod
    def of_rows(cls, columns: FloatArray, latency: FloatArray, steps: IntArray) -> "Contributions":
        """One pair per row that has a latency (latency >= 0)."""
        with_latency = np.flatnonzero(latency >= 0)
        return cls.of_pairs(columns, with_latency, latency[with_latency], steps[with_latency])


def contributions(judged: JudgedCycles) -> Contributions:
    """A2 per cycle; summing rows over a group gives the group's sums."""
    number = judged.numbers
    u = number["human_turns"].astype(np.float64)
    shipped = number["shipped"] == 1
    cost = number["cost_usd"].astype(np.float64)
    has_planner = judged.names["planner_model"].nonempty()
    columns = {
        "hjudged": np.ones(len(judged)),
        "hshipJudged": number["ship_status"] == 0,
        "hshipped": shipped,
        "hshippedCosted": shipped & (cost > 0),
        "huShip": np.where(shipped, u, 0),
        "hhrsShip": np.where(shipped, number["active_hours"].astype(np.float64), 0),
        "hcostShip": np.where(shipped, cost, 0),
        "hone": shipped & ((u == 1) | (has_planner & (u <= 2))),
        "hedits": number["edits"],
        "hteerr": number["edit_errors"],
        "hver": number["verified"] == 1,
        "habort": number["intervened"] == 1,
        "hu": u,
    }
    # Filled column by column, each write contiguous.
    by_column = np.empty((len(SUMS), len(judged)))
    for name, column in columns.items():
        by_column[S[name]] = column
    return Contributions.of_rows(
        by_column, number["step_seconds_median"].astype(np.float64), number["assistant_steps"].astype(np.int64)
    )
