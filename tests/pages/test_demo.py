import datetime as dt

from django.core.management import call_command

from ingest.models import Contributor, Cycle
from leaderboard import demo
from leaderboard.models import Snapshot


def test_it_generates_the_same_pool_from_the_same_seed() -> None:
    today = dt.date(2026, 11, 30)
    first = demo.demo_cycles(count=800, today=today)
    again = demo.demo_cycles(count=800, today=today)
    assert first == again
    other = demo.demo_cycles(count=800, today=today, seed=1)
    assert first != other


def test_it_generates_a_realistic_pool() -> None:
    today = dt.date(2026, 11, 30)
    cycles = [fields for _, fields in demo.demo_cycles(count=3000, today=today)]
    assert 2900 <= len(cycles) <= 3100
    pairings = {(c["planner_model"], c["builder_model"]) for c in cycles if c["planner_model"]}
    assert len(pairings) >= 12
    assert all(today - dt.timedelta(days=demo.DAYS) < c["day"] <= today for c in cycles)  # type: ignore[operator]
    statuses = {c["ship_status"] for c in cycles}
    assert statuses == {0, 1, 2}
    # The contract's rules hold: shipping needs edits in a repository and a judged status.
    for c in cycles:
        if c["shipped"]:
            assert c["edits"] and c["edit_paths"] == 1 and c["ship_status"] == 0  # type: ignore[operator]
        assert 0 <= c["edit_errors"] <= c["edits"]  # type: ignore[operator]
        assert len(str(c["cycle_key"])) == 16


def test_it_loads_and_publishes_a_demo_snapshot(db: None) -> None:
    call_command("load_demo", cycles=1200)
    snapshot = Snapshot.objects.get()
    assert snapshot.is_demo
    assert snapshot.cycles == Cycle.objects.count() > 1000
    assert Contributor.objects.count() == len(demo.demo_installs())
    assert len(snapshot.views["modelCombo"]["groups"]) >= 10


def test_it_replaces_rather_than_duplicates_on_a_second_load(db: None) -> None:
    call_command("load_demo", cycles=600)
    count = Cycle.objects.count()
    call_command("load_demo", cycles=600)
    assert Cycle.objects.count() == count
    assert Snapshot.objects.count() == 2


def test_it_loads_nothing_if_asked_to_only_fill_an_empty_database(db: None) -> None:
    call_command("load_demo", "--if-empty", cycles=600)
    count = Cycle.objects.count()
    assert count > 0
    call_command("load_demo", "--if-empty", cycles=900)
    assert Cycle.objects.count() == count
    assert Snapshot.objects.count() == 1
