"""Cycles on the wire, as the OpenCode plugin sends them: contract column names, positional rows, envelopes."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from ingest.columns import COLUMNS_BY_SCHEMA, FIELD_TO_CONTRACT
from tests.cycles import indexed_cycle, iso_day


def utc_iso(moment: datetime) -> str:
    """The way the plugin writes times: JavaScript's toISOString(), milliseconds and a Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def wire_row(cycle: dict[str, Any]) -> dict[str, Any]:
    """A cycle in stored field names as {contract column: value}."""
    return {FIELD_TO_CONTRACT[field]: value for field, value in iso_day(cycle).items()}


def wire_cycle(index: int, **overrides: Any) -> dict[str, Any]:
    """indexed_cycle(index) as a schema-3 wire row, `overrides` (contract column names) over it."""
    return {**wire_row(indexed_cycle(index)), **overrides}


def positional(row: Mapping[str, Any], schema: int = 3) -> list[Any]:
    """A row as the plugin sends it: the values of the schema's columns, in their order."""
    return [row[col] for col in COLUMNS_BY_SCHEMA[schema]]


def envelope(
    rows: list[dict[str, Any]] | int = 3,
    *,
    schema: int = 3,
    install: uuid.UUID | str | None = None,
    generated: datetime | None = None,
    extractor: str = "26.9.0",
) -> dict[str, Any]:
    """The plugin's envelope: six keys, the schema's column list, rows (or that many wire_cycle rows) in that order."""
    facts = [wire_cycle(i) for i in range(rows)] if isinstance(rows, int) else rows
    return {
        "schema": schema,
        "extractor": extractor,
        "install": str(install or uuid.uuid4()),
        "generated": utc_iso(generated or datetime.now(UTC) - timedelta(minutes=1)),
        "cols": list(COLUMNS_BY_SCHEMA[schema]),
        "rows": [positional(row, schema) for row in facts],
    }


def with_cell(body: dict[str, Any], row: int, col: str, value: Any) -> dict[str, Any]:
    """A copy of an envelope with one cell replaced."""
    copy = json.loads(json.dumps(body))
    copy["rows"][row][copy["cols"].index(col)] = value
    return copy
