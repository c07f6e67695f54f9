"""Reading an agent's log as it is on disk, perhaps still being written, perhaps crafted.

A log is other people's data. Only a regular file is opened (a FIFO would block for ever, a link
to /dev/zero would fill memory), each line is read up to a cap, and a line that is too long, too
deeply nested, not JSON or not of the shape its reader expects costs that line only. What was
passed over is told to the scan's ReadReport (see `reporting_to`), per harness, counted once per
file and line however often a reader opens the file.

A line's cost in memory is not its length: `[{},{},…]` is 3 bytes of text per dict and 70 bytes of
Python per dict. So before json.loads a line is weighed: the values it would make (its commas and
brackets outside strings) and how deep they nest, from a few C-speed passes over its bytes. A line
with too many values is passed over, and a file whose lines add up to too many stops being read
(readers keep a file's lines while they read it).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

MAX_FILE_BYTES: Final = 1 << 30  # the longest real transcripts seen are tens of megabytes
MAX_LINE_BYTES: Final = 64 << 20  # a line holding several pasted screenshots stays well under this
MAX_DEPTH: Final = 100  # real lines nest a dozen levels; readers and json.dumps recurse
# Real lines make at most a few hundred values (a long patch a few thousand); each value costs 50 to 100 bytes.
MAX_LINE_VALUES: Final = 1 << 18  # ~25 MB of Python at most
MAX_FILE_VALUES: Final = 1 << 23  # ~800 MB at most; a real transcript of this many values is hundreds of MB
MAX_TOKENS: Final = 10**12  # more tokens than any session could spend: a count beyond is not one

NOT_REGULAR: Final = "not a regular file"
UNREADABLE: Final = "unreadable"
TOO_LARGE: Final = "too large"
LINE_TOO_LONG: Final = "longer than the line limit"
TOO_DEEP: Final = "nested too deeply"
NOT_JSON: Final = "not JSON (or cut short while being written)"
NUMBER_TOO_LONG: Final = "a number too long to read"
NOT_AN_OBJECT: Final = "not a JSON object"
TOO_MANY_VALUES: Final = "more values than a log line holds"
FILE_TOO_MANY_VALUES: Final = "more values than a log file holds"

# What a line's weight is read from: quotes, commas and brackets, `{}` written `[]` (only nesting counts).
_NOT_STRUCTURE: Final = bytes(b for b in range(256) if b not in b'",[]{}')
_AS_SQUARE: Final = bytes.maketrans(b"{}", b"[]")
_STRING_RE: Final = re.compile(rb'"[^"]*"')  # a string once its escapes are gone and only structure is left

LineCheck = Callable[[dict[str, Any]], "str | None"]


@dataclass(slots=True)
class ReadReport:
    """What a scan read and passed over. Paths are kept only so each file and line counts once; never shown."""

    read: dict[Path, str] = field(default_factory=dict)  # file -> harness
    skipped_files: dict[Path, tuple[str, str]] = field(default_factory=dict)  # file -> (harness, why)
    skipped_lines: dict[tuple[Path, int], tuple[str, str]] = field(default_factory=dict)

    def files_read(self) -> Counter[str]:
        """Files read through, per harness (one skipped part-way, as too large, counts as skipped)."""
        return Counter(harness for path, harness in self.read.items() if path not in self.skipped_files)

    def files_skipped(self) -> Counter[tuple[str, str]]:
        return Counter(self.skipped_files.values())

    def lines_skipped(self) -> Counter[tuple[str, str]]:
        return Counter(self.skipped_lines.values())


# The report of the scan running now and the harness whose logs it reads; None outside a scan.
# Held here rather than passed down so that the readers' signatures stay as they are.
_current: ContextVar[tuple[ReadReport, str] | None] = ContextVar("read_report", default=None)


@contextmanager
def reporting_to(report: ReadReport, harness: str) -> Iterator[None]:
    token = _current.set((report, harness))
    try:
        yield
    finally:
        _current.reset(token)


def skip_file(path: Path, why: str) -> None:
    if (current := _current.get()) is not None:
        report, harness = current
        report.skipped_files.setdefault(path, (harness, why))


def _file_read(path: Path) -> None:
    if (current := _current.get()) is not None:
        report, harness = current
        report.read.setdefault(path, harness)


def skip_line(path: Path, number: int, why: str) -> None:
    """Tell the scan's report that line `number` of `path` was passed over, and why."""
    if (current := _current.get()) is not None:
        report, harness = current
        report.skipped_lines.setdefault((path, number), (harness, why))


def why_unreadable(path: Path) -> str | None:
    """Why `path` is not read (not a regular file, unreadable, too large), or None when it is fine."""
    try:
        info = os.stat(path)  # follows a symlink: a link to a regular file is read, one to /dev/zero not
    except (OSError, ValueError):
        return UNREADABLE
    if not stat.S_ISREG(info.st_mode):
        return NOT_REGULAR
    return TOO_LARGE if info.st_size > MAX_FILE_BYTES else None


def _open(path: Path) -> IO[bytes] | None:
    if (why := why_unreadable(path)) is not None:
        skip_file(path, why)
        return None
    try:
        # O_NONBLOCK: should the file be swapped for a FIFO after the check, opening it does not wait.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        skip_file(path, UNREADABLE)
        return None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        skip_file(path, NOT_REGULAR)
        return None
    _file_read(path)
    return os.fdopen(descriptor, "rb")


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a regular file, over-long lines left out and counted."""
    for number, line in _byte_lines(path):
        yield number, line.decode("utf-8", errors="replace")


def _byte_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    handle = _open(path)
    if handle is None:
        return
    total = 0
    with handle:
        number = 0
        while line := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            total += len(line)
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                total += _discard_rest_of_line(handle)
                skip_line(path, number, LINE_TOO_LONG)
            else:
                yield number, line
            line = b""  # a line may be tens of MB: not held while the next one is read
            if total > MAX_FILE_BYTES:  # still growing while read
                skip_file(path, TOO_LARGE)
                return


def _discard_rest_of_line(handle: IO[bytes]) -> int:
    skipped = 0
    while chunk := handle.readline(1 << 20):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def weigh(line: bytes, max_values: int = MAX_LINE_VALUES) -> tuple[int, str | None]:
    """How many values json.loads would make of `line`, and why not to parse it (None: parse it).

    `max_values` is a line's bound; a reader of whole JSON documents passes the bound of a file.

    Counts are of commas and brackets outside strings: each value but the first of an array or object
    follows a comma, each container opens with a bracket. Every pass is a C-speed bytes method that
    copies the line at most once; lines with few brackets and commas take only the first.
    """
    upper = line.count(b",") + line.count(b"{") + line.count(b"[")  # strings' contents counted too
    if upper <= MAX_DEPTH:  # too few brackets to nest too deep, too few values to matter
        return upper, None
    # Escapes first (`\\` then `\"`, as a reader pairs them from the left), then all but the structure.
    shape = line.replace(b"\\\\", b"").replace(b'\\"', b"").translate(_AS_SQUARE, _NOT_STRUCTURE)
    if shape.count(b'"') > 4 * max_values:  # each string is a value or a key: too many, however nested
        return upper, TOO_MANY_VALUES
    shape = _STRING_RE.sub(b"", shape)
    values = shape.count(b",") + shape.count(b"[")
    if values > max_values:
        return values, TOO_MANY_VALUES
    return values, _nesting(shape.replace(b",", b""))


def _nesting(brackets: bytes) -> str | None:
    """TOO_DEEP when the brackets nest deeper than MAX_DEPTH; each pass takes off the innermost pairs."""
    for _ in range(MAX_DEPTH):
        if not brackets:
            return None
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets):  # brackets left open (a line cut short) or closed unopened
            return NOT_JSON
        brackets = inner
    return TOO_DEEP if brackets else None


def _parse(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except RecursionError:
        return None, TOO_DEEP
    except json.JSONDecodeError:
        return None, NOT_JSON
    except ValueError:  # an integer past Python's digit limit
        return None, NUMBER_TOO_LONG


def problem_of(record: object, check: LineCheck | None) -> str | None:
    """What is wrong with a decoded record: not an object, or what `check` names; None when nothing is."""
    if not isinstance(record, dict):
        return NOT_AN_OBJECT
    return check(record) if check is not None else None


def json_objects(path: Path, check: LineCheck | None = None) -> Iterator[dict[str, Any]]:
    """Each line that is one JSON object (and passes `check`, which names what is wrong with a line or
    returns None); other lines are passed over and counted, blank ones silently. A file whose lines
    make more than MAX_FILE_VALUES values in all is read no further (its reader keeps what it read)."""
    total = 0
    for number, line in _byte_lines(path):
        if line.isspace():
            del line  # a line may be tens of MB: not held while the next one is read
            continue
        values, entry, why = _entry(line)
        del line
        total += values
        if total > MAX_FILE_VALUES:
            skip_file(path, FILE_TOO_MANY_VALUES)
            return
        why = why or problem_of(entry, check)
        if why is not None:
            skip_line(path, number, why)
            continue
        yield entry


def _entry(line: bytes) -> tuple[int, Any, str | None]:
    """(values it makes, the line parsed, why it is passed over); a line weighing too much is not parsed."""
    values, why = weigh(line)
    if why is not None:
        return 0, None, why
    entry, why = _parse(line.decode("utf-8", errors="replace"))
    return values, entry, why


def modified_time(path: Path) -> float:
    """When `path` last changed; 0 when it cannot be stat'ed (a dangling link): sorted first, skipped later."""
    try:
        return os.stat(path).st_mtime
    except (OSError, ValueError):
        return 0.0


def token_count(value: Any) -> int | None:
    """A token count as a log holds it: a whole number from 0 to MAX_TOKENS (absent: 0); None when it is not one.

    "12k", 1e400 (infinity once parsed), NaN, true and -5 are not counts.
    """
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    return int(value) if 0 <= value <= MAX_TOKENS else None
