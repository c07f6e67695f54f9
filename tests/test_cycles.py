"""The one factory of test cycles (tests/cycles): its names are the published ones, its renderings agree."""

import json
from datetime import UTC, datetime

import pytest

from ingest.contract import STORED_FIELDS, validate_envelope
from scoring import CYCLE_COLUMNS
from tests.cycles import DEFAULT_CYCLE, MODELS, PUBLISHED_EFFORTS, PUBLISHED_MODELS, cycle, indexed_cycle
from tests.cycles.frames import cycle_frame
from tests.cycles.wire import envelope
from tests.data.paths import POOL_DIR


def test_it_names_the_models_and_efforts_the_published_pool_ranks() -> None:
    views = json.loads((POOL_DIR / "pool.json").read_text())["views"]
    models = {group["label"] for group in views["model"]["groups"]}
    efforts = {group["label"].rsplit(":", 1)[1] for group in views["modelEffort"]["groups"]}
    assert set(PUBLISHED_MODELS) == models and set(PUBLISHED_EFFORTS) == efforts
    assert set(PUBLISHED_MODELS) < set(MODELS)


def test_it_defaults_every_stored_field_in_the_stored_order() -> None:
    assert tuple(DEFAULT_CYCLE) == STORED_FIELDS
    with pytest.raises(TypeError, match="shiped"):
        cycle(shiped=1)


def test_it_stores_from_the_wire_the_cycle_it_made() -> None:
    result = validate_envelope(envelope(40), now=datetime.now(UTC), max_rows=40)
    assert result.envelope is not None
    made = [indexed_cycle(index) for index in range(40)]
    # The storage keeps fewer decimals than the wire carries (cycle-record.md).
    places = {"cost_usd": 4, "active_hours": 4, "step_seconds_median": 2}
    assert result.envelope.row_dicts() == [{**row, **{f: round(row[f], p) for f, p in places.items()}} for row in made]


def test_it_frames_the_default_cycle_under_the_scorers_columns() -> None:
    frame = cycle_frame([{}, {"model": "grok-4.6", "contributor": 2}])
    assert tuple(frame.columns) == CYCLE_COLUMNS
    assert frame.model.tolist() == [DEFAULT_CYCLE["model"], "grok-4.6"]
    assert frame.contributor.tolist() == [1, 2]
    assert frame.day.tolist() == [DEFAULT_CYCLE["day"].isoformat()] * 2
