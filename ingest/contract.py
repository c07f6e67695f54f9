"""The contribution contract (cycle-record.md) as pure validation: no Django, no database.

`validate_envelope` checks a parsed JSON envelope, one tight pass per column, and either
returns the normalized rows (tuples in STORED_FIELDS order) or every error it found as
{"row", "col", "message"}. Messages are fixed sentences: they never echo a value back,
because a rejected value may be exactly the private thing the checks exist to stop.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from ingest.columns import COLUMNS_BY_SCHEMA, CONTRACT_TO_FIELD, DEFAULTS_FOR_MISSING, SCHEMA_3_COLUMNS

ENVELOPE_KEYS: Final = ("schema", "extractor", "install", "generated", "cols", "rows")
FIRST_DAY: Final = date(2024, 1, 1)
FUTURE_TOLERANCE: Final = timedelta(minutes=5)

CYCLE_KEY_RE: Final = re.compile(r"[0-9a-f]{16}")
DAY_RE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
TOKEN_RE: Final = re.compile(r"[a-z0-9][a-z0-9._:+_-]{0,63}")
EFFORT_RE: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")
VERSION_RE: Final = re.compile(r"[0-9][0-9A-Za-z.+-]{0,31}")
INSTALL_RE: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

# Privacy checks (cycle-record.md, "Privacy checks on every string"), on the trimmed, lowercased value.
WHITESPACE_RE: Final = re.compile(r"\s")
PATH_OR_ADDRESS_CHARS: Final = frozenset("/\\~@")
FILE_EXTENSIONS: Final = (".json", ".ts", ".py", ".md", ".gguf", ".bin", ".safetensors")
EMAIL_RE: Final = re.compile(r"[^@]+@[^@]+\.[^@]+")
# Any IPv4-shaped run, wherever it sits: after a dot too ("gpt.10.0.0.1"), not only after a letter.
IPV4_RE: Final = re.compile(r"(?<![0-9])[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?![0-9])")
UUID_RE: Final = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ID_PREFIXES: Final = ("ses_", "msg_", "prt_", "call_", "toolu_", "req_", "resp_")
HEX_RUN_RE: Final = re.compile(r"[0-9a-f]{12,}")
SECRET_RE: Final = re.compile(r"(?:sk-|ghp_|github_pat_|akia|xoxb-|xoxp-).{16,}", re.DOTALL)

# A cell check: raw JSON value -> (normalized value, None) or (None, message).
CellCheck = Callable[[Any], tuple[Any, str | None]]
# A column check: the column's raw values -> (normalized values, [(index, message)]).
ColumnCheck = Callable[[Sequence[Any]], tuple[list[Any], list[tuple[int, str]]]]


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


@dataclass(frozen=True, slots=True)
class Validation:
    envelope: Envelope | None
    errors: list[ContractError] = field(default_factory=list)
    # More rows than the cap: answered 413 rather than 400, before any row is looked at.
    too_many_rows: bool = False

    @property
    def is_valid(self) -> bool:
        return self.envelope is not None and not self.errors and not self.too_many_rows


def privacy_problem(value: str) -> str | None:
    """Why a trimmed, lowercased string could identify a person, path, session or secret; None when it cannot."""
    if WHITESPACE_RE.search(value):
        return "must not contain whitespace"
    if not PATH_OR_ADDRESS_CHARS.isdisjoint(value):
        return "must not contain a path or address character (/ \\ ~ @)"
    if value.endswith(FILE_EXTENSIONS):
        return "must not end in a file extension"
    if EMAIL_RE.fullmatch(value):
        return "must not be shaped like an e-mail address"
    if IPV4_RE.search(value):
        return "must not be shaped like an IPv4 address"
    if UUID_RE.search(value):
        return "must not be shaped like a UUID"
    if "localhost" in value:
        return "must not name the local machine"
    if value.startswith(ID_PREFIXES):
        return "must not start with a session, message or tool-call id prefix"
    if HEX_RUN_RE.search(value):
        return "must not contain a run of 12 or more hex digits"
    if SECRET_RE.match(value):
        return "must not look like a secret key"
    return None


def _string_check(pattern: re.Pattern[str], *, optional: bool, lowercase: bool, shape: str) -> CellCheck:
    """A checker for one string value: trimmed, privacy-checked lowercased, then matched to its shape."""

    def check(raw: Any) -> tuple[Any, str | None]:
        if type(raw) is not str:
            return None, "must be a string"
        trimmed = raw.strip()
        if trimmed == "":
            return ("", None) if optional else (None, "must not be empty")
        if not trimmed.isascii():
            return None, "must be ASCII"
        lowered = trimmed.lower()
        if (problem := privacy_problem(lowered)) is not None:
            return None, problem
        value = lowered if lowercase else trimmed
        return (value, None) if pattern.fullmatch(value) else (None, f"must be {shape}")

    return check


def _int_column(low: int, high: int) -> ColumnCheck:
    message = "must be 0 or 1" if (low, high) == (0, 1) else f"must be an integer from {low} to {high}"

    def check_column(column: Sequence[Any]) -> tuple[list[Any], list[tuple[int, str]]]:
        # type() rather than isinstance(): JSON true/false arrive as bool, a subclass of int.
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
        if bad:
            return [None] * len(column), [(index, message) for index in bad]
        return [float(round(raw, places)) for raw in column], []

    return check_column


def _per_distinct_value(check: CellCheck) -> ColumnCheck:
    """A column check that runs `check` once per distinct value: rows repeat their models and days."""

    def check_column(column: Sequence[Any]) -> tuple[list[Any], list[tuple[int, str]]]:
        try:
            results = {raw: check(raw) for raw in set(column)}
        except TypeError:  # an array or object among the values: check each cell
            checked = [check(raw) for raw in column]
        else:
            checked = [results[raw] for raw in column]
            if all(problem is None for _, problem in results.values()):
                return [value for value, _ in checked], []
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


def _column_checks(today: date) -> dict[str, ColumnCheck]:
    """One check per contract column; made per request because the day range moves with `today`."""
    token = _per_distinct_value(
        _string_check(TOKEN_RE, optional=False, lowercase=True, shape="a lowercase model or provider token")
    )
    optional_token = _per_distinct_value(
        _string_check(TOKEN_RE, optional=True, lowercase=True, shape="a lowercase token or empty")
    )
    effort = _per_distinct_value(
        _string_check(EFFORT_RE, optional=True, lowercase=True, shape="an effort name or empty")
    )
    version = _per_distinct_value(_string_check(VERSION_RE, optional=True, lowercase=False, shape="a version or empty"))
    flag = _int_column(0, 1)
    return {
        "cycle_key": _cycle_key_column,
        "day": _per_distinct_value(_day_check(today + timedelta(days=1))),
        "model": token,
        "prov": token,
        "role": _int_column(0, 2),
        "pm": optional_token,
        "pp": optional_token,
        "bm": optional_token,
        "bp": optional_token,
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


# The columns the rules between columns read, in the order _row_rule_errors takes them.
RULE_COLUMNS: Final = ("pm", "pp", "bm", "bp", "tedits", "teerr", "tpaths", "tship", "tver", "tshipe")


def _row_rule_errors(
    pm: str, pp: str, bm: str, bp: str, tedits: int, teerr: int, tpaths: int, tship: int, tver: int, tshipe: int
) -> list[tuple[str, str]]:
    """Rules between columns of one row whose cells are each valid, as (column, message)."""
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
    """Check an envelope against the contract; return the normalized rows or every error found."""
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

    normalized = _validate_rows(rows, cols, now.date(), errors)
    if errors or install is None or extractor is None or generated is None:
        return Validation(None, errors)
    return Validation(
        Envelope(schema=schema, extractor=extractor, install=install, generated=generated, rows=normalized)
    )


def _validate_rows(
    rows: list[Any], cols: tuple[str, ...], today: date, errors: list[ContractError]
) -> list[tuple[Any, ...]]:
    """Check the rows column by column (one tight pass per column), then the rules between columns."""
    width = len(cols)
    position = {col: index for index, col in enumerate(cols)}
    # (row, column position, column, message), sorted at the end into reading order.
    found: list[tuple[int, int, str | None, str]] = []
    shaped: list[list[Any]] = []
    row_numbers: list[int] = []
    for index, row in enumerate(rows):
        if type(row) is list and len(row) == width:
            shaped.append(row)
            row_numbers.append(index)
        else:
            found.append((index, -1, None, f"must be an array of exactly {width} values"))
    count = len(shaped)
    checks = _column_checks(today)
    columns: dict[str, list[Any]] = {}
    bad_rows: set[int] = set()
    for col, raw_column in zip(cols, zip(*shaped, strict=True) if shaped else [() for _ in cols], strict=True):
        values, problems = checks[col](raw_column)
        columns[col] = values
        for index, message in problems:
            found.append((row_numbers[index], position[col], col, message))
            bad_rows.add(index)
    for col in SCHEMA_3_COLUMNS:
        if col not in columns:
            columns[col] = [DEFAULTS_FOR_MISSING[col]] * count

    first_row_of_key: dict[str, int] = {}
    rule_columns = [columns[col] for col in RULE_COLUMNS]
    for index, (key, *cells) in enumerate(zip(columns["cycle_key"], *rule_columns, strict=True)):
        if index in bad_rows:
            continue
        for col, message in _row_rule_errors(*cells):
            found.append((row_numbers[index], position[col], col, message))
        first = first_row_of_key.setdefault(key, row_numbers[index])
        if first != row_numbers[index]:
            found.append(
                (row_numbers[index], position["cycle_key"], "cycle_key", f"repeats the cycle_key of row {first}")
            )

    if found:
        found.sort(key=lambda error: (error[0], error[1]))
        errors.extend(ContractError(row, col, message) for row, _, col, message in found)
        return []
    return list(zip(*(columns[col] for col in SCHEMA_3_COLUMNS), strict=True))
