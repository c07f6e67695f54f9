"""Reading a log that is one JSON document (a task's message array, a thread, a chat), perhaps cut short,
perhaps crafted, and JSON kept in database cells.

Some agents rewrite a whole JSON file as a task grows (Cline's `ui_messages.json`, Amp's threads, an
OpenCode export, a Gemini CLI chat before v0.39) or keep JSON in SQLite cells (OpenCode 1.2+, weighed
like a log line),
so a file caught mid-write ends part-way through a record. The records of an array are decoded one
at a time: a record that is not an object, or fails its reader's check, costs that record only;
where the text stops making sense (a cut, a syntax error) the records before it are kept and the
rest is reported as one skipped record. A file is weighed before it is decoded (jsonl.weigh), so
its values are bounded as a JSONL file's are, and its size is capped lower than a JSONL file's:
it is held whole while read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.jsonl import (
    FILE_TOO_MANY_VALUES,
    LINE_TOO_LONG,
    MAX_LINE_BYTES,
    TOO_DEEP,
    TOO_LARGE,
    TOO_MANY_VALUES,
    LineCheck,
    _open,
    _parse,
    problem_of,
    skip_file,
    skip_line,
    weigh,
)
from pragmatikos_recorder.jsonl import MAX_FILE_VALUES as MAX_VALUES

# Held whole and weighed (a copy): twice this at most before decoding. Real task files run to tens of MB.
MAX_BYTES: Final = 128 << 20
NOT_AN_ARRAY: Final = "not a JSON array"
NOT_JSON_TEXT: Final = "not JSON text (missing, or longer than a log line)"
CUT_SHORT: Final = "cut short or broken here; the records after it are not read"
_DECODER: Final = json.JSONDecoder()
_SPACE: Final = " \t\r\n"


def _text(path: Path, *, whole: bool) -> str | None:
    """The file's text when it is a regular file within MAX_BYTES and not too many values (nor, read
    `whole`, too deep: records are weighed one by one); else None, said."""
    handle = _open(path)
    if handle is None:
        return None
    with handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        skip_file(path, TOO_LARGE)
        return None
    _, why = weigh(data, MAX_VALUES)
    if why == TOO_MANY_VALUES:
        why = FILE_TOO_MANY_VALUES
    elif not whole:
        why = None
    if why is not None:
        skip_file(path, why)
        return None
    return data.decode("utf-8", errors="replace")


def document(path: Path) -> Any:
    """The file's JSON value, or None (told to the scan's report) when it is unreadable, too big or not JSON."""
    text = _text(path, whole=True)
    if text is None:
        return None
    value, why = _parse(text)
    if why is not None:
        skip_file(path, why)
        return None
    return value


def json_cell(text: Any) -> tuple[Any, int, str | None]:
    """A JSON text from a database cell, weighed like a log line: (its value, the values it makes, why
    it is passed over or None)."""
    if isinstance(text, bytes):
        raw = text
    elif isinstance(text, str):
        raw = text.encode("utf-8", errors="replace")
    else:
        return None, 0, NOT_JSON_TEXT
    if len(raw) > MAX_LINE_BYTES:
        return None, 0, LINE_TOO_LONG
    values, why = weigh(raw)
    if why is not None:
        return None, 0, why
    value, why = _parse(raw.decode("utf-8", errors="replace"))
    return value, values, why


def records(path: Path, check: LineCheck | None = None) -> Iterator[dict[str, Any]]:
    """Each object of the file's top-level array that passes `check`, in order; others are reported by number."""
    text = _text(path, whole=False)
    if text is None:
        return
    index = _skip_space(text, 0)
    if not text.startswith("[", index):
        skip_file(path, NOT_AN_ARRAY)
        return
    index, number = index + 1, 0
    while True:
        index = _skip_space(text, index)
        if index >= len(text) or text[index] == "]":
            return
        number += 1
        record, end, why = _decode(text, index)
        if end is None:
            skip_line(path, number, why or CUT_SHORT)
            return
        why = why or problem_of(record, check)
        if why is not None:
            skip_line(path, number, why)
        else:
            yield record
        following = _after_comma(text, end)
        if following is None:
            skip_line(path, number + 1, CUT_SHORT)
            return
        index = following


def _decode(text: str, index: int) -> tuple[Any, int | None, str | None]:
    """(the record at `index`, where it ends, why it is passed over); no end when decoding cannot go on."""
    try:
        record, end = _DECODER.raw_decode(text, index)
    except RecursionError:
        return None, None, TOO_DEEP
    except ValueError:
        return None, None, None
    _, why = weigh(text[index:end].encode())  # its nesting, which readers may walk
    return record, end, why


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in _SPACE:
        index += 1
    return index


def _after_comma(text: str, index: int) -> int | None:
    """Where the next record starts (or the array's `]`); None when neither `,` nor `]` follows."""
    index = _skip_space(text, index)
    if index < len(text) and text[index] == ",":
        return index + 1
    if index < len(text) and text[index] == "]":
        return index
    return None
