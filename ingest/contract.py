"""The contribution contract (cycle-record.md) as pure validation: no Django, no database.

`validate_envelope` checks a parsed JSON envelope, one tight pass per column. A fault of the
envelope itself (its keys, schema, cols, install, extractor, generated, or a row that is not an
array of len(cols) scalars) refuses the request; a row whose values break a column rule or a
privacy check is only skipped: the valid rows come back normalized (tuples in STORED_FIELDS
order) beside the skipped rows' errors, each {"row", "col", "message"}. Messages are fixed
sentences: they never echo a value back, because a rejected value may be exactly the private
thing the checks exist to stop.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from pragmatikos_contract.values import VERSION_RE, privacy_problem

from ingest.columns import COLUMNS_BY_SCHEMA, CONTRACT_TO_FIELD, DEFAULTS_FOR_MISSING, SCHEMA_3_COLUMNS
from ingest.contract_rules import (
    PLACEHOLDER,
    RULE_COLUMNS,
    RuleCells,
    column_checks,
    row_rule_errors,
)

ENVELOPE_KEYS: Final = ("schema", "extractor", "install", "generated", "cols", "rows")
FUTURE_TOLERANCE: Final = timedelta(minutes=5)

INSTALL_RE: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

# JSON scalars: a row holding anything else (null, an object, an array) is a fault of the envelope.
SCALAR_TYPES: Final = frozenset({str, int, float, bool})


@dataclass(frozen=True, slots=True)
class ContractError:
    """One broken rule: the row index (0-based, None for the envelope) and the contract column or key."""

    row: int | None
    col: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"row": self.row, "col": self.col, "message": self.message}


# The order of a normalized row: the stored field names of schema 3, cycle_key first.
STORED_FIELDS: Final[tuple[str, ...]] = tuple(CONTRACT_TO_FIELD[col] for col in SCHEMA_3_COLUMNS)


@dataclass(frozen=True, slots=True)
class Envelope:
    """A valid contribution, normalized.

    Each row is a tuple in STORED_FIELDS order (tuples rather than dicts: a 20,000-row request
    builds them in a fraction of the time), older schemas filled in per the spec.
    """

    schema: int
    extractor: str
    install: uuid.UUID
    generated: datetime
    rows: list[tuple[Any, ...]]

    def row_dicts(self) -> list[dict[str, Any]]:
        """The rows as {stored field name: value}."""
        return [dict(zip(STORED_FIELDS, row, strict=True)) for row in self.rows]


# Errors listed in an answer: a request with 20,000 bad rows gets the first ones and a count, and
# the others are counted without being built.
MAX_ERRORS: Final = 100


class RowErrors(list[ContractError]):
    """The first MAX_ERRORS errors of skipped rows, in reading order, and how many there were in all."""

    total: int = 0


@dataclass(frozen=True, slots=True)
class Validation:
    """The envelope with its valid rows, or None when the envelope itself is refused.

    `errors` are the faults of the envelope (the request is refused); `row_errors` those of the
    skipped rows, of which there are `skipped` (a row may break several rules).
    """

    envelope: Envelope | None
    errors: list[ContractError] = field(default_factory=list)
    # More rows than the cap: answered 413 rather than 400, before any row is looked at.
    too_many_rows: bool = False
    row_errors: RowErrors = field(default_factory=RowErrors)
    skipped: int = 0

    @property
    def is_valid(self) -> bool:
        """Every row valid: nothing refused and nothing skipped."""
        return self.envelope is not None and not self.errors and not self.too_many_rows and not self.skipped


def _envelope_error(col: str | None, message: str) -> ContractError:
    return ContractError(row=None, col=col, message=message)


def parse_generated(raw: Any, *, now: datetime) -> tuple[datetime | None, str | None]:
    message = "must be an ISO-8601 UTC time"
    if type(raw) is not str or len(raw) > 40:
        return None, message
    try:
        generated = datetime.fromisoformat(raw)
    except ValueError:
        return None, message
    offset = generated.utcoffset()
    if offset is None or offset != timedelta(0):
        return None, message
    if generated > now + FUTURE_TOLERANCE:
        return None, "must not be more than 5 minutes in the future"
    return generated.astimezone(UTC), None


def parse_install(raw: Any) -> uuid.UUID | None:
    """The install id as a UUID, or None when it is not one (any version, either case, hyphenated)."""
    if type(raw) is str and INSTALL_RE.fullmatch(raw):
        return uuid.UUID(raw)
    return None


def validate_envelope(data: Any, *, now: datetime, max_rows: int) -> Validation:
    """Check an envelope against the contract.

    Returns the envelope with its valid rows and the errors of the skipped ones, or no envelope
    and the errors that refuse it (its own fields, or a row that is not len(cols) scalars).
    """
    if not isinstance(data, dict):
        return Validation(None, [_envelope_error(None, "the body must be a JSON object (the envelope)")])
    if len(data) != len(ENVELOPE_KEYS) or any(key not in data for key in ENVELOPE_KEYS):
        return Validation(
            None, [_envelope_error(None, "the envelope must have exactly the keys " + ", ".join(ENVELOPE_KEYS))]
        )

    schema = data["schema"]
    if type(schema) is not int or schema not in COLUMNS_BY_SCHEMA:
        return Validation(None, [_envelope_error("schema", "must be 1, 2 or 3")])
    cols = COLUMNS_BY_SCHEMA[schema]
    if type(data["cols"]) is not list or tuple(data["cols"]) != cols:
        return Validation(
            None, [_envelope_error("cols", f"must be exactly the {len(cols)} columns of schema {schema}")]
        )
    rows = data["rows"]
    if type(rows) is not list:
        return Validation(None, [_envelope_error("rows", "must be an array of rows")])
    if len(rows) > max_rows:
        return Validation(None, [_envelope_error("rows", f"must hold at most {max_rows} rows")], too_many_rows=True)

    errors: list[ContractError] = []
    install = parse_install(data["install"])
    if install is None:
        errors.append(_envelope_error("install", "must be a UUID"))
    extractor = data["extractor"]
    if type(extractor) is not str or not VERSION_RE.fullmatch(extractor):
        errors.append(_envelope_error("extractor", "must be a version like 26.9.0"))
        extractor = None
    elif (problem := privacy_problem(extractor.lower())) is not None:
        errors.append(_envelope_error("extractor", problem))
        extractor = None
    now = now.astimezone(UTC)
    generated, generated_problem = parse_generated(data["generated"], now=now)
    if generated_problem is not None:
        errors.append(_envelope_error("generated", generated_problem))
    width_errors = _width_errors(rows, len(cols))
    columns = [] if width_errors else _columns_of(rows, len(cols))
    errors.extend(width_errors or _scalar_errors(columns, cols))
    if errors or install is None or extractor is None or generated is None:
        return Validation(None, errors)

    normalized, row_errors, skipped = _validate_rows(columns, cols, now.date())
    envelope = Envelope(schema=schema, extractor=extractor, install=install, generated=generated, rows=normalized)
    return Validation(envelope, row_errors=row_errors, skipped=skipped)


def _width_errors(rows: list[Any], width: int) -> list[ContractError]:
    """Rows that are not an array of exactly `width` values: faults of the envelope."""
    return [
        ContractError(index, None, f"must be an array of exactly {width} values")
        for index, row in enumerate(rows)
        if type(row) is not list or len(row) != width
    ]


# Rows are turned into columns (and back) this many at a time: one zip over a whole 100,000-row request holds
# every row of it as a new tuple at once, and took twice as long as chunks of this size.
TRANSPOSE_CHUNK: Final = 4_000


def _columns_of(rows: list[list[Any]], width: int) -> list[list[Any]]:
    """The columns of rows that each hold exactly `width` values."""
    columns: list[list[Any]] = [[] for _ in range(width)]
    for start in range(0, len(rows), TRANSPOSE_CHUNK):
        for column, values in zip(columns, zip(*rows[start : start + TRANSPOSE_CHUNK], strict=True), strict=True):
            column.extend(values)
    return columns


def _rows_of(columns: list[list[Any]]) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(columns[0]) if columns else 0, TRANSPOSE_CHUNK):
        rows.extend(zip(*(column[start : start + TRANSPOSE_CHUNK] for column in columns), strict=True))
    return rows


def _scalar_errors(columns: list[list[Any]], cols: tuple[str, ...]) -> list[ContractError]:
    """Values that are not JSON scalars (null, an array, an object): faults of the envelope."""
    # One pass over each column's value types (in C), then a slow look only where one is not a scalar.
    found: list[tuple[int, int, ContractError]] = []
    for position, (col, column) in enumerate(zip(cols, columns, strict=True)):
        if not set(map(type, column)) <= SCALAR_TYPES:
            found.extend(
                (index, position, ContractError(index, col, "must be a string, a number, true or false (not null)"))
                for index, raw in enumerate(column)
                if type(raw) not in SCALAR_TYPES
            )
    return [error for _, _, error in sorted(found, key=lambda item: item[:2])]


def _clear_roles(columns: dict[str, list[Any]]) -> None:
    """Placeholders become the empty value; one on either side of a role clears the role.

    A planner (or builder) whose model or provider the client could not name is no planner to
    judge (cycle-record.md): both of its columns are stored empty, as for a cycle without one.
    """
    placeholder = id(PLACEHOLDER)
    for model_col, provider_col in (("pm", "pp"), ("bm", "bp")):
        models, providers = columns[model_col], columns[provider_col]
        if placeholder not in map(id, models) and placeholder not in map(id, providers):
            continue  # the usual case, in C
        for index, (model, provider) in enumerate(zip(models, providers, strict=True)):
            if model is PLACEHOLDER or provider is PLACEHOLDER:
                models[index] = providers[index] = ""
    for col, values in columns.items():
        if PLACEHOLDER in values:  # "" == PLACEHOLDER too: only then is the column looked at closely
            columns[col] = ["" if value is PLACEHOLDER else value for value in values]


def _validate_rows(
    raw_columns: list[list[Any]], cols: tuple[str, ...], today: date
) -> tuple[list[tuple[Any, ...]], RowErrors, int]:
    """Check well-shaped rows column by column (one tight pass per column), then the rules between columns.

    Returns the valid rows normalized, the errors of the others, and how many were skipped.
    """
    count = len(raw_columns[0])
    position = {col: index for index, col in enumerate(cols)}
    # (row, column position, column, message), sorted at the end into reading order.
    found: list[tuple[int, int, str, str]] = []
    checks = column_checks(today)
    columns: dict[str, list[Any]] = {}
    bad_rows: set[int] = set()
    problems_by_col: dict[str, list[tuple[int, str]]] = {}
    for col, raw_column in zip(cols, raw_columns, strict=True):
        values, problems = checks[col](raw_column)
        columns[col] = values
        if problems:
            problems_by_col[col] = problems
            bad_rows.update(index for index, _ in problems)
    # Only the first rows' errors are ever listed: build those, and count the rest.
    last_listed = sorted(bad_rows)[MAX_ERRORS - 1] if len(bad_rows) >= MAX_ERRORS else None
    uncounted = 0
    for col, problems in problems_by_col.items():
        for index, message in problems:
            if last_listed is None or index <= last_listed:
                found.append((index, position[col], col, message))
            else:
                uncounted += 1
    for col in SCHEMA_3_COLUMNS:
        if col not in columns:
            columns[col] = [DEFAULTS_FOR_MISSING[col]] * count
    _clear_roles(columns)

    first_row_of_key: dict[str, int] = {}
    rule_columns = [columns[col] for col in RULE_COLUMNS]
    for index, (key, *cells) in enumerate(zip(columns["cycle_key"], *rule_columns, strict=True)):
        if index in bad_rows:
            if type(key) is str:
                first_row_of_key.setdefault(key, index)
            continue
        for col, message in row_rule_errors(RuleCells(*cells)):
            found.append((index, position[col], col, message))
            bad_rows.add(index)
        first = first_row_of_key.setdefault(key, index)
        if first != index:
            found.append((index, position["cycle_key"], "cycle_key", f"repeats the cycle_key of row {first}"))
            bad_rows.add(index)

    found.sort(key=lambda error: (error[0], error[1]))
    errors = RowErrors(ContractError(row, col, message) for row, _, col, message in found[:MAX_ERRORS])
    errors.total = len(found) + uncounted
    ordered = [columns[col] for col in SCHEMA_3_COLUMNS]
    if not bad_rows:
        return _rows_of(ordered), errors, 0
    valid = [row for index, row in enumerate(_rows_of(ordered)) if index not in bad_rows]
    return valid, errors, len(bad_rows)
