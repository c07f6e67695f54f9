import datetime as dt
from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from django.utils import timezone

from ingest.models import Cycle
from leaderboard import recompute
from leaderboard.coordination import coordinator
from leaderboard.models import GroupScore, Snapshot
from leaderboard.published import intervals_pending, newest_snapshot
from leaderboard.selectors import cycles_frame, score_history
from leaderboard.tasks import recompute_on_start
from scoring import CYCLE_COLUMNS
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline.workers import clear_owed

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
    snapshot = recompute.publish()
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
    first = recompute.publish()
    assert recompute.publish() is None
    assert newest_snapshot() == first
    Cycle.objects.filter(id=pooled_cycles[0].id).update(shipped=1 - pooled_cycles[0].shipped)
    second = recompute.publish()
    assert second is not None and second.id > first.id  # type: ignore[union-attr]


def publish_another(seed: int) -> Snapshot:
    """A new contributor's cycles, then a recompute that publishes them."""
    make_cycles(make_contributor(), count=30, seed=seed, key_offset=1000 * seed)
    snapshot = recompute.publish()
    assert snapshot is not None
    return snapshot


def move_to_days_ago(snapshot: Snapshot, days: int) -> None:
    Snapshot.objects.filter(id=snapshot.id).update(created_at=F("created_at") - dt.timedelta(days=days))


def test_it_keeps_one_history_point_per_group_and_day_from_the_days_newest_snapshot(
    pooled_cycles: list[Cycle],
) -> None:
    yesterday = recompute.publish()
    assert yesterday is not None
    move_to_days_ago(yesterday, 1)
    earlier_today = [publish_another(seed) for seed in (3, 4, 5)]
    newest = publish_another(6)

    label = "grok-4.6 → grok-4.6"
    history = score_history("modelCombo", label, points=60)
    assert [point[0] for point in history] == [yesterday.id, newest.id]
    assert history[-1][2] == next(g["scoreAdj"] for g in newest.views["modelCombo"]["groups"] if g["label"] == label)
    assert not GroupScore.objects.filter(snapshot__in=earlier_today).exists()
    ranked = sum(len(body["groups"]) for body in newest.views.values())
    assert GroupScore.objects.filter(snapshot=newest).count() == ranked


def test_it_prunes_old_snapshots_but_the_newest_and_the_last_of_each_day(
    pooled_cycles: list[Cycle], settings: Any, client: Client
) -> None:
    settings.SNAPSHOTS_KEPT = 3
    first = recompute.publish()
    assert first is not None
    move_to_days_ago(first, 2)
    two_days_ago_last = publish_another(3)
    move_to_days_ago(two_days_ago_last, 2)
    yesterday = publish_another(4)
    move_to_days_ago(yesterday, 1)
    today = [publish_another(seed) for seed in (5, 6, 7, 8)]

    kept = set(Snapshot.objects.values_list("id", flat=True))
    assert kept == {two_days_ago_last.id, yesterday.id, *(s.id for s in today[-3:])}
    # Kept for the dates of the history only: no document, no samples.
    assert Snapshot.objects.get(id=two_days_ago_last.id).document == {}
    assert Snapshot.objects.get(id=today[-1].id).views == today[-1].views
    history = score_history("modelCombo", "grok-4.6 → grok-4.6", points=60)
    assert [point[0] for point in history] == [two_days_ago_last.id, yesterday.id, today[-1].id]
    # The pages still serve, the pairing page with its three days of history.
    assert client.get("/").status_code == 200
    pairing = client.get("/pairing/", {"view": "modelCombo", "label": "grok-4.6 → grok-4.6"})
    assert pairing.status_code == 200 and "no score history yet" not in pairing.content.decode()


def test_it_coalesces_many_requests_into_one_recompute(pooled_cycles: list[Cycle]) -> None:
    coord = coordinator()
    clear_owed(coord)
    for _ in range(5):
        coord.mark_pending()
    recompute.run_owed()
    # One recompute: the pool's points first, then the whole snapshot with their intervals.
    published = Snapshot.objects.order_by("id")
    assert [intervals_pending(snapshot.document) for snapshot in published] == [True, False]
    assert not coord.is_pending()


def test_it_leaves_the_work_to_the_lock_holder(pooled_cycles: list[Cycle]) -> None:
    coord = coordinator()
    holder = coordinator()
    assert holder.try_lock()
    try:
        coord.mark_pending()
        assert recompute.run_owed().published is None
        assert Snapshot.objects.count() == 0
        assert coord.is_pending(), "the owed recompute must stay owed for the holder"
    finally:
        holder.unlock()
    assert recompute.run_owed().published is not None


def test_a_starting_worker_publishes_the_intervals_a_dead_recompute_left_pending(
    pooled_cycles: list[Cycle], monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the worker died between the points and the intervals")

    monkeypatch.setattr(recompute, "score_cells", killed)
    with pytest.raises(RuntimeError):
        recompute.publish(points_first=True)
    monkeypatch.undo()
    newest = newest_snapshot()
    assert newest is not None and intervals_pending(newest.document)
    assert recompute.newest_is_unreadable()
    recompute_on_start()
    newest = newest_snapshot()
    assert newest is not None and not intervals_pending(newest.document)
    assert Snapshot.objects.count() == 2  # the same pool: its points were published, not again


def test_a_starting_worker_republishes_a_snapshot_stored_under_another_document_version(
    pooled_cycles: list[Cycle],
) -> None:
    first = recompute.publish()
    assert first is not None and not recompute.newest_is_unreadable()
    recompute_on_start()  # nothing owed, nothing unreadable: nothing new
    assert Snapshot.objects.count() == 1
    older = first.document
    older["meta"]["document_version"] = 0  # as a release that moved the version finds it
    Snapshot.objects.filter(id=first.id).update(document=older)
    assert recompute.newest_is_unreadable()
    recompute_on_start()
    assert Snapshot.objects.count() == 2
    assert not recompute.newest_is_unreadable()
