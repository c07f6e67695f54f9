"""What a request body may cost a web process, decided before it is parsed, and given back when it ends.

Parsed JSON costs far more than its bytes: a body of `{}` objects is 3 bytes an object and 72 in
Python, so 64 MiB of them would be 1.5 GB. A valid envelope can only hold so many values (its rows
times its columns), and separators count them without parsing: a body with more cannot be valid and
is refused before one object is built. What is parsed is dropped when the request ends, rather than
left to the cycle collector (DRF's Request and the view refer to each other).
"""

from __future__ import annotations

import re
import uuid
from typing import Any, Final, cast

from django.conf import settings
from django.http import HttpRequest
from rest_framework import status
from rest_framework.exceptions import APIException

from ingest.columns import COLUMNS_BY_SCHEMA
from ingest.contract import ENVELOPE_KEYS, MAX_ERRORS, parse_install

WIDEST_ROW: Final = max(len(cols) for cols in COLUMNS_BY_SCHEMA.values())
# The envelope's install key and value as sent: a string followed by a colon is always an object's key.
INSTALL_KEY: Final = re.compile(rb'"install"\s*:\s*"([0-9a-fA-F-]{36})"')


def most_separators(max_rows: int) -> int:
    """The most `,`, `[` and `{` outside strings an envelope of `max_rows` rows of the widest schema can hold:
    its keys, the column list, the rows array and each row's brackets and commas."""
    return len(ENVELOPE_KEYS) + WIDEST_ROW + 3 + max_rows * (WIDEST_ROW + 1)


def holds_too_many_values(raw: bytes, max_rows: int) -> bool:
    """More values than any valid envelope of `max_rows` rows holds, counted over the raw bytes at memory
    speed. A separator inside a string counts too: no value the contract admits holds one (names, versions,
    days and keys are tokens), so such a string is a row that could only be skipped."""
    return raw.count(b",") + raw.count(b"[") + raw.count(b"{") > most_separators(max_rows)


# Objects a body may hold besides the envelope before it is refused unparsed: a few get each their row's error
# (an answer lists MAX_ERRORS of them anyway); millions would each cost a call of the parser's key check.
MOST_OBJECTS: Final = 1 + MAX_ERRORS


def holds_objects_in_rows(raw: bytes) -> bool:
    """More `{` than an envelope and a listable few bad rows: a valid envelope is the body's one object (a `{`
    inside a string counts too: no value the contract admits holds one)."""
    return raw.count(b"{") > MOST_OBJECTS


class ObjectsInRowsError(APIException):
    """Rows full of objects: 400 naming `rows`, before the body is parsed."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "objects_in_rows"

    def __init__(self) -> None:
        message = f"must be arrays of JSON scalars; the body holds over {MOST_OBJECTS - 1} objects besides itself"
        super().__init__()
        # As answered: DRF would make every value of a detail given to it a string, the null row too.
        self.detail = cast(
            Any,
            {
                "error": "1 value breaks the contribution contract; nothing was stored.",
                "errors": [{"row": None, "col": "rows", "message": message}],
            },
        )


class TooManyValuesError(APIException):
    """A body holding more values than INGEST_MAX_ROWS rows can: 413, before it is parsed."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_many_values"

    def __init__(self) -> None:
        super().__init__(
            f"The body holds more values than {settings.INGEST_MAX_ROWS} rows of {WIDEST_ROW} columns can; "
            "send fewer rows per request."
        )


def refuse_costly_body(raw: bytes) -> None:
    """413 for more values than INGEST_MAX_ROWS rows can hold, 400 for rows full of objects: both before the body
    is parsed, so neither builds an object."""
    if holds_too_many_values(raw, settings.INGEST_MAX_ROWS):
        raise TooManyValuesError
    if holds_objects_in_rows(raw):
        raise ObjectsInRowsError


def install_as_sent(raw: bytes) -> uuid.UUID | None:
    """The install an envelope names, read from its bytes before it is parsed (None when none is found that
    way: a key written with escapes is found once the body is parsed)."""
    found = INSTALL_KEY.search(raw)
    return parse_install(found.group(1).decode()) if found else None


# What DRF's Request and Django's HttpRequest keep of a body once it is read and parsed.
PARSED_ATTRIBUTES: Final = ("_data", "_files", "_full_data", "_stream")
READ_ATTRIBUTES: Final = ("_body", "_stream")


def release_body(drf_request: Any, http_request: HttpRequest) -> None:
    """Drop the raw and the parsed body at the end of a request. The view, DRF's Request and its parser
    context refer to each other, so whatever they hold otherwise waits for a full collection."""
    if drf_request is not None:
        for name in PARSED_ATTRIBUTES:
            vars(drf_request).pop(name, None)
    for name in READ_ATTRIBUTES:
        vars(http_request).pop(name, None)
