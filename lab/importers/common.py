"""What every lab reader returns, the error it raises, and small checked conversions."""

import datetime as dt
import json
import math
import tomllib
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from lab.names import normalise_model

# Longest stored text per field (LabRun's column sizes).
MODEL_LENGTH = 100
SHORT_LENGTH = 100
EFFORT_LENGTH = 32
KEY_LENGTH = 300

# What each published source is, in words shown beside its runs.
SOURCES_FILE = Path(__file__).with_name("sources.toml")


class LabInputError(ValueError):
    """Bad input, with the file (and line, where there is one) that holds it."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass(frozen=True)
class SourceInfo:
    """A published source in its own words (LabSource's fields): every one stated, "" where it has none."""

    name: str
    title: str
    origin: str
    commit: str
    grade_words: str
    caveats: str

    def named(self, name: str | None) -> "SourceInfo":
        """This source, renamed when the import names it."""
        return self if name is None else replace(self, name=name)

    def described(self) -> dict[str, str]:
        """Everything but the name: what a stored source is updated to."""
        return {key: value for key, value in asdict(self).items() if key != "name"}


@cache
def published_source(name: str) -> SourceInfo:
    """A published source as sources.toml describes it."""
    return SourceInfo(name=name, **tomllib.loads(SOURCES_FILE.read_text(encoding="utf-8"))[name])


@dataclass(frozen=True)
class RunRecord:
    key: str
    task: str
    model: str
    planner: str = ""
    builder: str = ""
    harness: str = ""
    effort: str = ""
    grade: float | None = None
    grade_max: float | None = None
    resolved: bool | None = None
    seconds: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    day: dt.date | None = None
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedSource:
    source: SourceInfo
    runs: list[RunRecord]


def json_lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, object) for each non-blank line; where is "file:line"."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise LabInputError(str(path), f"cannot read it ({error.strerror})") from error
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise LabInputError(where, f"not JSON ({error.msg})") from error
            if not isinstance(value, dict):
                raise LabInputError(where, "a line must be one JSON object")
            yield where, value


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise LabInputError(str(path), f"cannot read it ({error.strerror})") from error
    except json.JSONDecodeError as error:
        raise LabInputError(f"{path}:{error.lineno}", f"not JSON ({error.msg})") from error


def number(where: str, name: str, value: object, *, minimum: float | None = 0.0) -> float | None:
    """A finite number (at least `minimum`) or None; anything else is an error naming the field."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LabInputError(where, f"{name} must be a number or null, not {value!r}")
    if minimum is not None and value < minimum:
        raise LabInputError(where, f"{name} must be at least {minimum:g}, not {value!r}")
    return float(value)


def count(where: str, name: str, value: object) -> int | None:
    as_number = number(where, name, value)
    if as_number is None:
        return None
    if not as_number.is_integer():
        raise LabInputError(where, f"{name} must be a whole number, not {value!r}")
    return int(as_number)


def text(where: str, name: str, value: object, *, required: bool = False, length: int = SHORT_LENGTH) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise LabInputError(where, f"{name} must be a string, not {value!r}")
    value = value.strip()
    if required and not value:
        raise LabInputError(where, f"{name} is required")
    if len(value) > length:
        raise LabInputError(where, f"{name} is longer than {length} characters")
    return value


def model_name(where: str, name: str, value: object, *, required: bool = False) -> str:
    raw = text(where, name, value, required=required, length=KEY_LENGTH)
    normal = normalise_model(raw)
    if required and not normal:
        raise LabInputError(where, f"{name} is required")
    if len(normal) > MODEL_LENGTH:
        raise LabInputError(where, f"{name} is longer than {MODEL_LENGTH} characters")
    return normal


def day(where: str, name: str, value: object) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.date):  # YAML reads an unquoted date as a date
        return value
    if not isinstance(value, str):
        raise LabInputError(where, f"{name} must be a YYYY-MM-DD date, not {value!r}")
    try:
        return dt.date.fromisoformat(value.strip()[:10])
    except ValueError as error:
        raise LabInputError(where, f"{name} must be a YYYY-MM-DD date, not {value!r}") from error


class Fields:
    """The checked conversions above, reading one object's keys: `fields.number("cost_usd")` reads
    row["cost_usd"] and names it in any error (prefixed, for a nested object: "tokens.input")."""

    def __init__(self, where: str, row: dict[str, Any], *, prefix: str = "") -> None:
        self.where = where
        self.row = row
        self.prefix = prefix

    def nested(self, key: str) -> "Fields":
        """The object under `key` (an empty one where it is not an object)."""
        inner = self.row.get(key)
        return Fields(self.where, inner if isinstance(inner, dict) else {}, prefix=f"{self.prefix}{key}.")

    def text(self, key: str, *, required: bool = False, length: int = SHORT_LENGTH) -> str:
        return text(self.where, self.prefix + key, self.row.get(key), required=required, length=length)

    def number(self, key: str, *, minimum: float | None = 0.0) -> float | None:
        return number(self.where, self.prefix + key, self.row.get(key), minimum=minimum)

    def count(self, key: str, *, name: str | None = None) -> int | None:
        return count(self.where, name or self.prefix + key, self.row.get(key))

    def model(self, key: str, *, required: bool = False) -> str:
        return model_name(self.where, self.prefix + key, self.row.get(key), required=required)

    def day(self, key: str) -> dt.date | None:
        return day(self.where, self.prefix + key, self.row.get(key))

    def effort(self, key: str = "effort") -> str:
        return text(self.where, self.prefix + key, self.row.get(key), length=EFFORT_LENGTH)

    def harness(self) -> str:
        """The harness's name: words in brackets describe the set-up ("manual-orchestration (planner: …)")."""
        return self.text("harness", length=300).split(" (")[0][:100]
