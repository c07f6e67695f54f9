"""Envelopes as the OpenCode plugin builds them: positional rows under the spec's column lists.

The vocabulary (models, efforts) is the one of the published pool scorecard in tests/data,
so test rows name real models the way real clients do.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, timedelta
from functools import cache
from typing import Any

from ingest.columns import COLUMNS_BY_SCHEMA, SCHEMA_3_COLUMNS
from tests.data.paths import POOL_DIR

POOL_FILE = POOL_DIR / "pool.json"
PROVIDER_BY_FAMILY = {"claude": "anthropic", "grok": "xai", "gpt": "openai", "muse": "meta", "deepseek": "deepseek"}


@cache
def published_vocabulary() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(models, efforts) named in the published pool scorecard."""
    views = json.loads(POOL_FILE.read_text())["views"]
    models = tuple(sorted({group["label"] for group in views["model"]["groups"]}))
    efforts = tuple(sorted({group["label"].rsplit(":", 1)[1] for group in views["modelEffort"]["groups"]}))
    return models, efforts


def provider_of(model: str) -> str:
    return PROVIDER_BY_FAMILY.get(model.split("-", 1)[0], "openrouter")


def utc_iso(moment: datetime) -> str:
    """The way the plugin writes times: JavaScript's toISOString(), milliseconds and a Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def cycle_facts(index: int, **overrides: Any) -> dict[str, Any]:
    """A valid schema-3 row as {contract column: value}, varied by index."""
    models, efforts = published_vocabulary()
    planner = models[index % len(models)]
    builder = models[(index * 7 + 3) % len(models)]
    edits = index % 9
    facts: dict[str, Any] = {
        "cycle_key": f"{index + 0xA000:016x}",
        "day": (date(2026, 9, 1) - timedelta(days=index % 200)).isoformat(),
        "model": builder,
        "prov": provider_of(builder),
        "role": 2,
        "pm": planner,
        "pp": provider_of(planner),
        "bm": builder,
        "bp": provider_of(builder),
        "u": 1 + index % 5,
        "a": 10 + index % 300,
        "tedits": edits,
        "tpaths": 1 if edits else 0,
        "teerr": edits // 3,
        "tcost": round(0.01 * (index % 500) + 0.123456, 6),
        "tship": 1 if edits and index % 3 else 0,
        "thrs": round((index % 40) / 7, 6),
        "tver": 1 if edits and index % 2 else 0,
        "tabort": index % 2,
        "latmed": -1 if index % 11 == 0 else round((index % 600) / 3.0, 4),
        "tshipe": 0,
        "variant": efforts[index % len(efforts)],
        "pv": efforts[(index + 1) % len(efforts)],
        "bv": efforts[index % len(efforts)],
        "harness": "opencode",
        "hversion": "1.14.2",
    }
    facts.update(overrides)
    return facts


def positional(facts: dict[str, Any], schema: int = 3) -> list[Any]:
    return [facts[col] for col in COLUMNS_BY_SCHEMA[schema]]


def envelope(
    rows: list[dict[str, Any]] | int = 3,
    *,
    schema: int = 3,
    install: uuid.UUID | str | None = None,
    generated: datetime | None = None,
    extractor: str = "26.9.0",
) -> dict[str, Any]:
    """The plugin's envelope: six keys, the schema's column list, rows as arrays in that order."""
    facts = [cycle_facts(i) for i in range(rows)] if isinstance(rows, int) else rows
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


__all__ = ["SCHEMA_3_COLUMNS", "cycle_facts", "envelope", "positional", "utc_iso", "with_cell"]
