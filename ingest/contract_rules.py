"""The contract's rules for values (cycle-record.md): one check per column, and the rules between the columns
of a row. Pure: no Django, no database; ingest.contract applies them to an envelope.

Messages are fixed sentences: they never echo a value back, because a rejected value may be exactly the
private thing the checks exist to stop.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import Any, Final, NamedTuple

from pragmatikos_contract.names import canonical_model
from pragmatikos_contract.values import EFFORT_RE, TOKEN_RE, VERSION_RE, privacy_problem

FIRST_DAY: Final = date(2024, 1, 1)
CYCLE_KEY_RE: Final = re.compile(r"[0-9a-f]{16}")
DAY_RE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

# What the real client writes where it has no value (cycle-record.md, "What the real client sends"):
# stored as the column's empty value.
PLACEHOLDERS: Final = frozenset({"(none)", "(unlisted)", "(unknown)"})
# A vendor's dated model id, e.g. Vertex's claude-sonnet-4@20250514: stored as the part before the @.
DATED_MODEL_RE: Final = re.compile(r"(.+)@((?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01]))")

# A cell check: raw JSON value -> (normalized value, None) or (None, message).
CellCheck = Callable[[Any], tuple[Any, str | None]]
# A column check: the column's raw values -> (normalized values, [(index, message)]).
ColumnCheck = Callable[[Sequence[Any]], tuple[list[Any], list[tuple[int, str]]]]


class _Placeholder(str):
    """A placeholder label as checked: stored as "", but told apart from a value sent empty (see _clear_roles)."""


PLACEHOLDER: Final = _Placeholder("")


def _string_check(
    pattern: re.Pattern[str],
    *,
    optional: bool,
    lowercase: bool,
    shape: str,
    placeholders: bool = False,
    dated: bool = False,
    canonical: Callable[[str], str] | None = None,
) -> CellCheck:
    """A checker for one string value: trimmed, privacy-checked lowercased, then matched to its shape.

    With `placeholders`, the client's placeholder labels pass as PLACEHOLDER; with `dated`, a
    trailing @YYYYMMDD is dropped before the checks (any other @ is still refused). With `canonical`,
    the value stored is that canonical form, checked again: what is published is what was checked.
    """

    def check(raw: Any) -> tuple[Any, str | None]:
        if type(raw) is not str:
            return None, "must be a string"
        trimmed = raw.strip()
        if trimmed == "":
            return ("", None) if optional else (None, "must not be empty")
        if not trimmed.isascii():
            return None, "must be ASCII"
        lowered = trimmed.lower()
        if placeholders and lowered in PLACEHOLDERS:
            return PLACEHOLDER, None
        if dated and (found := DATED_MODEL_RE.fullmatch(trimmed)) is not None:
            trimmed = found.group(1)
            lowered = trimmed.lower()
        if (problem := privacy_problem(lowered)) is not None:
            return None, problem
        value = lowered if lowercase else trimmed
        if canonical is not None:
            value = canonical(value)
            # Dropping parts or joining version digits can make a shape the raw value did not have (x-1-2-3-4).
            if value != lowered and (problem := privacy_problem(value)) is not None:
                return None, problem
        return (value, None) if pattern.fullmatch(value) else (None, f"must be {shape}")

    return check


def _int_column(low: int, high: int) -> ColumnCheck:
    message = "must be 0 or 1" if (low, high) == (0, 1) else f"must be an integer from {low} to {high}"

    def check_column(column: Sequence[Any]) -> tuple[list[Any], list[tuple[int, str]]]:
        # type() rather than isinstance(): JSON true/false arrive as bool, a subclass of int.
        if set(map(type, column)) <= {int} and (not column or (low <= min(column) and max(column) <= high)):
            return list(column), []  # the usual case, in C: a look at each value only when one is wrong
        bad = [index for index, raw in enumerate(column) if type(raw) is not int or not low <= raw <= high]
        return list(column), [(index, message) for index in bad]

    return check_column


def _number_column(low: float, high: float, places: int, *, none_marker: float | None = None) -> ColumnCheck:
    if none_marker is None:
        message = f"must be a finite number from {low:g} to {high:g}"
    else:
        message = f"must be {none_marker:g} or a finite number from {low:g} to {high:g}"

    def check_column(column: Sequence[Any]) -> tuple[list[Any], list[tuple[int, str]]]:
        # NaN and the infinities fail both comparisons, so the range test also asks for finiteness.
        bad = [
            index
            for index, raw in enumerate(column)
            if (type(raw) is not float and type(raw) is not int) or not (low <= raw <= high or raw == none_marker)
        ]
        # "+ 0.0" stores a negative zero (JSON -0.0, or a small negative rounded) as 0: one value, one spelling.
        if bad:
            skipped = set(bad)
            values = [None if index in skipped else round(raw, places) + 0.0 for index, raw in enumerate(column)]
            return values, [(index, message) for index in bad]
        return [round(raw, places) + 0.0 for raw in column], []

    return check_column


def _per_distinct_value(check: CellCheck) -> ColumnCheck:
    """A column check that runs `check` once per distinct value: rows repeat their models and days."""

    def check_column(column: Sequence[Any]) -> tuple[list[Any], list[tuple[int, str]]]:
        try:
            results = {raw: check(raw) for raw in set(column)}
        except TypeError:  # an array or object among the values: check each cell
            checked = [check(raw) for raw in column]
        else:
            if all(problem is None for _, problem in results.values()):
                value_of = {raw: value for raw, (value, _) in results.items()}
                return list(map(value_of.__getitem__, column)), []
            checked = [results[raw] for raw in column]
        problems = [(index, problem) for index, (_, problem) in enumerate(checked) if problem is not None]
        return [value for value, _ in checked], problems

    return check_column


def _cycle_key_column(column: Sequence[Any]) -> tuple[list[Any], list[tuple[int, str]]]:
    match = CYCLE_KEY_RE.fullmatch
    bad = [index for index, raw in enumerate(column) if type(raw) is not str or not match(raw)]
    return list(column), [(index, "must be 16 lowercase hex digits") for index in bad]


def _day_check(last_day: date) -> CellCheck:
    message = f"must be a real date YYYY-MM-DD from {FIRST_DAY.isoformat()} to {last_day.isoformat()}"

    def check(raw: Any) -> tuple[Any, str | None]:
        if type(raw) is not str or not DAY_RE.fullmatch(raw):
            return None, message
        try:
            day = date.fromisoformat(raw)
        except ValueError:
            return None, message
        if not FIRST_DAY <= day <= last_day:
            return None, message
        return day, None

    return check


def column_checks(today: date) -> dict[str, ColumnCheck]:
    """One check per contract column; made per request because the day range moves with `today`."""
    # Model names are stored in their canonical form (pragmatikos_contract.names), providers as sent.
    model, optional_model, provider, optional_provider = (
        _per_distinct_value(
            _string_check(
                TOKEN_RE,
                optional=optional,
                lowercase=True,
                shape="a lowercase token or empty" if optional else "a lowercase model or provider token",
                placeholders=True,
                dated=True,
                canonical=canonical,
            )
        )
        for canonical in (canonical_model, None)
        for optional in (False, True)
    )
    token = _per_distinct_value(
        _string_check(TOKEN_RE, optional=False, lowercase=True, shape="a lowercase token such as opencode")
    )
    effort = _per_distinct_value(
        _string_check(EFFORT_RE, optional=True, lowercase=True, shape="an effort name or empty", placeholders=True)
    )
    version = _per_distinct_value(
        _string_check(VERSION_RE, optional=True, lowercase=False, shape="a version or empty", placeholders=True)
    )
    flag = _int_column(0, 1)
    return {
        "cycle_key": _cycle_key_column,
        "day": _per_distinct_value(_day_check(today + timedelta(days=1))),
        "model": model,
        "prov": provider,
        "role": _int_column(0, 2),
        "pm": optional_model,
        "pp": optional_provider,
        "bm": optional_model,
        "bp": optional_provider,
        "u": _int_column(0, 2000),
        "a": _int_column(0, 50000),
        "tedits": _int_column(0, 20000),
        "tpaths": flag,
        "teerr": _int_column(0, 20000),
        "tcost": _number_column(0, 5000, 4),
        "tship": flag,
        "thrs": _number_column(0, 72, 4),
        "tver": flag,
        "tabort": flag,
        "latmed": _number_column(0, 600, 2, none_marker=-1),
        "tshipe": _int_column(0, 2),
        "variant": effort,
        "pv": effort,
        "bv": effort,
        "harness": token,
        "hversion": version,
    }


class RuleCells(NamedTuple):
    """The cells of one row that the rules between columns read, each already valid on its own."""

    pm: str
    pp: str
    bm: str
    bp: str
    tedits: int
    teerr: int
    tpaths: int
    tship: int
    tver: int
    tshipe: int


# The columns the rules between columns read, in RuleCells' order.
RULE_COLUMNS: Final = RuleCells._fields


def row_rule_errors(cells: RuleCells) -> list[tuple[str, str]]:
    """Rules between columns of one row whose cells are each valid, as (column, message)."""
    pm, pp, bm, bp, tedits, teerr, tpaths, tship, tver, tshipe = cells
    broken = []
    if (pm == "") != (pp == ""):
        broken.append(("pp", "must be set exactly when pm is set"))
    if (bm == "") != (bp == ""):
        broken.append(("bp", "must be set exactly when bm is set"))
    if teerr > tedits:
        broken.append(("teerr", "must not exceed tedits"))
    if tship == 1:
        if tedits == 0 or tpaths != 1:
            broken.append(("tship", "may be 1 only when tedits > 0 and tpaths = 1"))
        if tshipe != 0:
            broken.append(("tship", "may be 1 only when tshipe = 0"))
    if tver == 1 and tedits == 0:
        broken.append(("tver", "may be 1 only when tedits > 0"))
    return broken
