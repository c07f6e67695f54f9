"""Whole JSON documents and JSON held in database cells, read within the bounds jsonl.py sets for lines.

Some agents write a session as one JSON document rewritten on every change (an OpenCode export, a
Gemini CLI chat file before v0.39) or keep JSON in SQLite cells (OpenCode 1.2+). A document is read
whole, so it is weighed whole before json.loads: its bytes against MAX_DOCUMENT_BYTES, the values
it would make against the bound of a whole log file. A cell is weighed like a log line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.jsonl import (
    LINE_TOO_LONG,
    MAX_FILE_VALUES,
    MAX_LINE_BYTES,
    TOO_LARGE,
    _open,
    _parse,
    skip_file,
    weigh,
)

# The longest real chat files seen are a few megabytes; a document is held whole while it is parsed.
MAX_DOCUMENT_BYTES: Final = 256 << 20
NOT_JSON_TEXT: Final = "not JSON text (missing, or longer than a log line)"


def json_document(path: Path) -> Any | None:
    """The JSON value `path` holds, or None (told to the scan's report) when it cannot be read safely."""
    handle = _open(path)
    if handle is None:
        return None
    with handle:
        data = handle.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        skip_file(path, TOO_LARGE)
        return None
    _, why = weigh(data, MAX_FILE_VALUES)
    value = None
    if why is None:
        value, why = _parse(data.decode("utf-8", errors="replace"))
    del data
    if why is not None:
        skip_file(path, why)
        return None
    return value


def json_cell(text: Any) -> tuple[Any, int, str | None]:
    """A JSON text from a database cell: (its value, the values it makes, why it is passed over or None)."""
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
