"""The cells PostgreSQL keeps (ingest.models.Cell, with their latency histograms) equal the stored cycles summed
afresh, through every write: a contribution's COPY, a resend's UPDATE, a retraction's DELETE, a contributor
deleted, and the migrations' summing of cycles stored before them."""

from __future__ import annotations

import importlib
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.db import connection

from ingest import cell_triggers
from ingest.models import Cell, Contributor, Cycle
from ingest.services import contribute, retract
from scoring.shapes import CELL_KEY, CELL_TALLIES, SUMS
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.test_services import validated

pytestmark = pytest.mark.django_db

Key = tuple[Any, ...]
FIELDS = [name if name != "contributor" else "contributor_id" for name in CELL_KEY]


def _judged(cycle: Cycle) -> bool:
    return cycle.assistant_steps > 0 and cycle.edits > 0 and cycle.edit_paths == 1


def _shares(c: Cycle) -> dict[str, float]:
    """One cycle's share of its cell's sums, written out from scoring spec A2 (not from the migration's table)."""
    shipped = c.shipped == 1
    one_shot = shipped and (c.human_turns == 1 or (c.planner_model != "" and c.human_turns <= 2))
    return {
        "hjudged": 1,
        "hshipJudged": c.ship_status == 0,
        "hshipped": shipped,
        "hshippedCosted": shipped and c.cost_usd > 0,
        "huShip": c.human_turns if shipped else 0,
        "hhrsShip": c.active_hours if shipped else 0.0,
        "hcostShip": c.cost_usd if shipped else 0.0,
        "hone": one_shot,
        "hedits": c.edits,
        "hteerr": c.edit_errors,
        "hver": c.verified == 1,
        "habort": c.intervened == 1,
        "hu": c.human_turns,
        "pending": c.ship_status == 1,
        "unshippable": c.ship_status == 2,
        "shipJudgedShipped": c.ship_status == 0 and shipped,
    }


def summed_afresh() -> tuple[dict[Key, dict[str, float]], dict[Key, dict[float, int]]]:
    cells: dict[Key, dict[str, float]] = defaultdict(lambda: dict.fromkeys([*SUMS, *CELL_TALLIES], 0.0))
    latencies: dict[Key, dict[float, int]] = defaultdict(lambda: defaultdict(int))
    for cycle in Cycle.objects.all():
        key = (*(getattr(cycle, name) for name in FIELDS[:-1]), _judged(cycle))
        for name, share in _shares(cycle).items():
            cells[key][name] += float(share)
        if key[-1] and cycle.step_seconds_median >= 0:
            latencies[key][cycle.step_seconds_median] += cycle.assistant_steps
    return dict(cells), {key: dict(bag) for key, bag in latencies.items()}


def stored() -> tuple[dict[Key, dict[str, float]], dict[Key, dict[float, int]]]:
    cells = {cell.id: cell for cell in Cell.objects.all()}
    keys = {pk: tuple(getattr(cell, name) for name in FIELDS) for pk, cell in cells.items()}
    tallied = [*SUMS, *CELL_TALLIES]
    sums = {keys[pk]: {name: float(getattr(cell, name)) for name in tallied} for pk, cell in cells.items()}
    latencies: dict[Key, dict[float, int]] = {}
    for pk, cell in cells.items():
        # A latency may be stored more than once (appended by later cycles); every weight is positive.
        assert all(weight > 0 for weight in cell.latency_weights), cell.latency_weights
        assert len(cell.latencies) == len(cell.latency_weights)
        bag: dict[float, int] = defaultdict(int)
        for latency, weight in zip(cell.latencies, cell.latency_weights, strict=True):
            bag[latency] += weight
        if bag:
            latencies[keys[pk]] = dict(bag)
    return sums, latencies


def assert_cells_are_the_cycles() -> None:
    (theirs, their_bags), (ours, our_bags) = summed_afresh(), stored()
    assert ours.keys() == theirs.keys()
    for key, sums in theirs.items():
        assert ours[key] == pytest.approx(sums, rel=1e-12, abs=1e-12), key
    assert our_bags == their_bags


def rows(count: int, start: int = 0, **overrides: Any) -> list[dict[str, Any]]:
    return [wire_cycle(i, **overrides) for i in range(start, start + count)]


def send(install: uuid.UUID, facts: list[dict[str, Any]], generated: datetime) -> None:
    contribute(envelope=validated(envelope(facts, install=install, generated=generated)), now=datetime.now(UTC))


def test_contributions_resends_and_retractions_keep_the_cells_equal_to_the_cycles() -> None:
    first, second = uuid.uuid4(), uuid.uuid4()
    earlier = datetime.now(UTC) - timedelta(hours=2)
    send(first, rows(60), earlier)
    send(second, rows(40, start=20), earlier)
    assert Cell.objects.exclude(latencies=[]).exists()
    assert_cells_are_the_cycles()

    # A resend: half the stored cycles come back changed (now shipped, another latency), beside new ones.
    later = earlier + timedelta(hours=1)
    changed = [{**row, "tshipe": 0, "tship": 1, "latmed": 7.25} for row in rows(30)] + rows(15, start=100)
    send(first, changed, later)
    assert Cycle.objects.filter(step_seconds_median=7.25).count() >= 20  # rewritten in place (a few break a rule)
    assert_cells_are_the_cycles()

    retract(install=second, now=datetime.now(UTC))
    assert_cells_are_the_cycles()
    assert not Cell.objects.filter(contributor__retracted_at__isnull=False).exists()

    Contributor.objects.filter(cycles__isnull=False).distinct().delete()  # the cascade deletes its cycles
    assert not Cell.objects.exists()


def test_a_cell_emptied_and_filled_again_holds_exact_sums() -> None:
    install = uuid.uuid4()
    earlier = datetime.now(UTC) - timedelta(hours=3)
    send(install, rows(25, tcost=0.1, tship=1, tshipe=0), earlier)
    # Moved out of their cells and back: a float sum would keep a residue of 0.1's rounding here.
    send(install, rows(25, tcost=0.1, tship=0, tshipe=1), earlier + timedelta(hours=1))
    send(install, rows(25, tcost=0.1, tship=1, tshipe=0), earlier + timedelta(hours=2))
    assert_cells_are_the_cycles()
    shipped = Cycle.objects.filter(shipped=1).count()
    assert shipped > 0
    assert sum(cell.hcostShip for cell in Cell.objects.all()) == Decimal("0.1") * shipped


def test_the_migration_sums_the_cycles_stored_before_it() -> None:
    send(uuid.uuid4(), rows(50), datetime.now(UTC) - timedelta(hours=1))
    expected = stored()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE ingest_cell")  # as the migration (0008) does before summing
        cursor.execute(cell_triggers.ADD_CELLS_0008.replace("{source}", cell_triggers.STORED))
    assert stored() == expected
    assert_cells_are_the_cycles()


def test_the_canonical_names_migration_moves_cycles_to_their_canonical_cells() -> None:
    """Rows stored as sent before names were canonical: rewritten in place, the triggers keep the cells equal."""
    send(uuid.uuid4(), rows(30), datetime.now(UTC) - timedelta(hours=1))
    raw = {
        "claude-opus-4.7": "us.anthropic.claude-opus-4-7-20991231-v5551234:0",
        "gpt-5.1": "gpt-5-1-20251113",
    }
    for canonical, sent in raw.items():
        for field in ("model", "planner_model", "builder_model"):
            Cycle.objects.filter(**{field: canonical}).update(**{field: sent})
    Cycle.objects.filter(id=Cycle.objects.order_by("id").values("id")[:1]).update(model="x-10-1-2-3")
    assert Cell.objects.filter(model=raw["claude-opus-4.7"]).exists()
    migration = importlib.import_module("ingest.migrations.0009_canonical_model_names")

    migration.canonicalise(django_apps, connection.schema_editor())

    names = {name for field in migration.MODEL_FIELDS for name in Cycle.objects.values_list(field, flat=True)}
    assert not names & set(raw.values())
    assert "x-10-1-2-3" in names, "a canonical form that breaks a privacy check is not stored"
    assert not Cell.objects.filter(model__in=raw.values()).exists()
    assert_cells_are_the_cycles()


# Overrides that put every row in one judged cell.
ONE_CELL: dict[str, Any] = {
    **{"day": "2026-06-01", "harness": "opencode", "model": "claude-opus-4.7", "variant": "high"},
    **{"pm": "gpt-5.1", "pv": "high", "bm": "claude-opus-4.7", "bv": "high", "tedits": 3, "tpaths": 1},
}


def test_a_latency_appended_twice_then_taken_away_once_keeps_its_other_cycle() -> None:
    install = uuid.uuid4()
    earlier = datetime.now(UTC) - timedelta(hours=3)
    same_cell = {**ONE_CELL, "latmed": 4.5, "a": 7}
    send(install, rows(1, **same_cell), earlier)
    send(install, rows(1, start=1, **same_cell), earlier + timedelta(minutes=1))
    (cell,) = Cell.objects.filter(judged=True)
    assert cell.latencies == [4.5, 4.5]  # appended, not summed
    # The first cycle moves to another latency: its old entry is summed away, the second cycle's stays.
    send(install, rows(1, **{**same_cell, "latmed": 9.0}), earlier + timedelta(minutes=2))
    cell.refresh_from_db()
    assert sorted(zip(cell.latencies, cell.latency_weights, strict=True)) == sorted(
        (cycle.step_seconds_median, cycle.assistant_steps) for cycle in Cycle.objects.all()
    )
    assert_cells_are_the_cycles()


def test_a_resend_of_the_same_facts_leaves_the_cells_as_they_were() -> None:
    install = uuid.uuid4()
    earlier = datetime.now(UTC) - timedelta(hours=3)
    same_cell = {**ONE_CELL, "latmed": 2.25, "a": 5}
    send(install, rows(2, **same_cell), earlier)
    (before,) = Cell.objects.filter(judged=True).values_list("latencies", "latency_weights")
    assert before == ([2.25, 2.25], [5, 5])
    # A later extraction of the same facts moves `generated` on; taking the cycles out and putting them back
    # would have summed the two entries into one.
    send(install, rows(2, **same_cell), earlier + timedelta(hours=1))
    assert Cycle.objects.filter(generated__gt=earlier).count() == 2
    assert Cell.objects.filter(judged=True).values_list("latencies", "latency_weights").get() == before
    assert_cells_are_the_cycles()
