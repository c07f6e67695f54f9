"""Reading an agent's log as it is on disk, perhaps still being written, perhaps crafted.

A log is other people's data. Only a regular file is opened (a FIFO would block for ever, a link
to /dev/zero would fill memory), each line is read up to a cap, and a line that is too long, too
deeply nested, not JSON or not of the shape its reader expects costs that line only. What was
passed over is told to the scan's ReadReport (see `reporting_to`), per harness, counted once per
file and line however often a reader opens the file.
"""

from __future__ import annotations

import json
import math
import os
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
MAX_TOKENS: Final = 10**12  # more tokens than any session could spend: a count beyond is not one

NOT_REGULAR: Final = "not a regular file"
UNREADABLE: Final = "unreadable"
TOO_LARGE: Final = "too large"
LINE_TOO_LONG: Final = "longer than the line limit"
TOO_DEEP: Final = "nested too deeply"
NOT_JSON: Final = "not JSON (or cut short while being written)"
NUMBER_TOO_LONG: Final = "a number too long to read"
NOT_AN_OBJECT: Final = "not a JSON object"

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
                yield number, line.decode("utf-8", errors="replace")
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


def _too_deep(value: Any) -> bool:
    """Whether `value` nests deeper than MAX_DEPTH, walked without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _parse(text: str) -> tuple[Any, str | None]:
    try:
        value = json.loads(text)
    except RecursionError:
        return None, TOO_DEEP
    except json.JSONDecodeError:
        return None, NOT_JSON
    except ValueError:  # an integer past Python's digit limit
        return None, NUMBER_TOO_LONG
    # Counting brackets is quick and bounds the depth: only a line with many is walked.
    if text.count("{") + text.count("[") > MAX_DEPTH and _too_deep(value):
        return None, TOO_DEEP
    return value, None


def json_objects(path: Path, check: LineCheck | None = None) -> Iterator[dict[str, Any]]:
    """Each line that is one JSON object (and passes `check`, which names what is wrong with a line or
    returns None); other lines are passed over and counted, blank ones silently."""
    for number, text in text_lines(path):
        if not text.strip():
            continue
        entry, why = _parse(text)
        if why is None and not isinstance(entry, dict):
            why = NOT_AN_OBJECT
        if why is None and check is not None:
            why = check(entry)
        if why is not None:
            skip_line(path, number, why)
            continue
        yield entry


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
