import datetime as dt

import pytest
from django.utils import timezone

from ingest.models import Cycle
from leaderboard import services
from leaderboard.coordination import coordinator
from leaderboard.models import GroupScore, Snapshot
from leaderboard.selectors import cycles_frame, latest_snapshot
from scoring import CYCLE_COLUMNS
from tests.cycles.stored import make_contributor, make_cycles

VIEWS = {"model", "family", "modelEffort", "modelCombo", "famCombo", "modelEffortCombo"}


@pytest.fixture
def pooled_cycles(db: None) -> list[Cycle]:
    first, second = make_contributor(), make_contributor()
    return make_cycles(first, count=120, seed=1) + make_cycles(second, count=80, seed=2, ship_rate=0.5)


def test_it_reads_every_cycle_in_one_query(pooled_cycles: list[Cycle], django_assert_num_queries) -> None:
    with django_assert_num_queries(1):  # who counts toward a name comes in the same query
        frame = cycles_frame(decisions={})  # the operator's decisions on names: read by the caller, once
    assert len(frame) == 200
    assert set(CYCLE_COLUMNS) <= set(frame.columns)
    assert frame["cost_usd"].dtype == "float64"
    assert frame["planner_model"].map(lambda value: isinstance(value, str)).all()


def test_it_narrows_the_frame_to_a_day_window(pooled_cycles: list[Cycle]) -> None:
    since, until = dt.date(2026, 6, 10), dt.date(2026, 6, 19)
    frame = cycles_frame(since=since, until=until)
    expected = Cycle.objects.filter(day__gte=since, day__lte=until).count()
    assert len(frame) == expected > 0
    assert frame["day"].min() >= since and frame["day"].max() <= until


def test_it_leaves_retracted_contributors_out(pooled_cycles: list[Cycle]) -> None:
    retracted = pooled_cycles[0].contributor
    retracted.retracted_at = timezone.now()
    retracted.save()
    frame = cycles_frame()
    assert len(frame) == 80
    assert retracted.id not in set(frame["contributor"])


def test_it_publishes_a_snapshot_of_all_six_views(pooled_cycles: list[Cycle]) -> None:
    snapshot = services.recompute_snapshot()
    assert snapshot is not None
    assert set(snapshot.views) == VIEWS
    assert snapshot.cycles == 200 and snapshot.contributors == 2
    combo = snapshot.views["modelCombo"]["groups"]
    assert {g["label"] for g in combo} == {
        "claude-opus-4.8 → claude-opus-4.8",
        "claude-fable-5 → grok-4.6",
        "gpt-6 → muse-spark-1.3",
        "grok-4.6 → grok-4.6",
    }
    assert sum(g["hjudged"] for g in combo) == 200
    stored = GroupScore.objects.filter(snapshot=snapshot, view="modelCombo")
    assert {s.label: s.score_adj for s in stored} == {g["label"]: g["scoreAdj"] for g in combo}


def test_it_publishes_nothing_new_when_the_pool_is_unchanged(pooled_cycles: list[Cycle]) -> None:
    first = services.recompute_snapshot()
    assert services.recompute_snapshot() is None
    assert latest_snapshot() == first
    Cycle.objects.filter(id=pooled_cycles[0].id).update(shipped=1 - pooled_cycles[0].shipped)
    second = services.recompute_snapshot()
    assert second is not None and second.id > first.id  # type: ignore[union-attr]


def test_it_keeps_earlier_snapshots_as_history(pooled_cycles: list[Cycle]) -> None:
    services.recompute_snapshot()
    make_cycles(make_contributor(), count=30, seed=3)
    services.recompute_snapshot()
    assert Snapshot.objects.count() == 2
    history = GroupScore.objects.filter(view="modelCombo", label="grok-4.6 → grok-4.6").order_by("snapshot_id")
    assert history.count() == 2


def test_it_coalesces_many_requests_into_one_recompute(pooled_cycles: list[Cycle]) -> None:
    coord = coordinator()
    coord.take_pending()
    for _ in range(5):
        coord.mark_pending()
    services.run_pending_recomputes()
    assert Snapshot.objects.count() == 1
    assert not coord.is_pending()


def test_it_leaves_the_work_to_the_lock_holder(pooled_cycles: list[Cycle]) -> None:
    coord = coordinator()
    holder = coordinator()
    assert holder.try_lock()
    try:
        coord.mark_pending()
        assert services.run_pending_recomputes() is None
        assert Snapshot.objects.count() == 0
        assert coord.is_pending(), "the owed recompute must stay owed for the holder"
    finally:
        holder.unlock()
    assert services.run_pending_recomputes() is not None
