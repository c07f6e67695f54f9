"""tests/demo_pool.py puts back what load_demo published once instead of publishing per test: the same state."""

from typing import Any

from ingest.models import Cell, Contributor, Cycle
from leaderboard import recompute
from leaderboard.models import GroupScore, Snapshot
from tests.demo_pool import PublishedDemo


def scores_of(snapshot: Snapshot) -> list[tuple[Any, ...]]:
    rows = GroupScore.objects.filter(snapshot=snapshot).order_by("view", "rank", "label")
    return list(rows.values_list("view", "label", "score_adj", "ci_lo", "ci_hi", "rank", "hjudged"))


def test_the_published_pool_leaves_the_database_empty(published_demo: PublishedDemo, db: None) -> None:
    """It is published once per test process, in a transaction rolled back: other tests start empty."""
    assert published_demo.facts and published_demo.scores
    assert not Contributor.objects.exists()
    assert not Cycle.objects.exists()
    assert not Cell.objects.exists()
    assert not Snapshot.objects.exists()


def test_the_put_back_pool_is_the_one_a_recompute_publishes(
    published_demo: PublishedDemo, demo_snapshot: Snapshot
) -> None:
    stored = Snapshot.objects.get()
    put_back = scores_of(stored)
    assert list(Contributor.objects.order_by("id").values()) == published_demo.contributors
    assert stored.cycles == Cycle.objects.count() == sum(len(cycles) for cycles in published_demo.facts.values())
    assert put_back

    # The snapshot's fingerprint names the pool as stored (its contributors' ids too): nothing changed since.
    assert recompute.publish() is None
    again = recompute.publish(force=True)

    assert again is not None
    assert (again.fingerprint, again.is_demo, again.cycles, again.judged, again.contributors) == (
        stored.fingerprint,
        stored.is_demo,
        stored.cycles,
        stored.judged,
        stored.contributors,
    )
    assert without_generated(again.document) == without_generated(stored.document)
    assert again.samples == stored.samples
    assert again.name_decisions == stored.name_decisions
    assert scores_of(again) == put_back


def without_generated(document: dict[str, Any]) -> dict[str, Any]:
    """The document but the time it was made."""
    return {**document, "meta": {k: v for k, v in document["meta"].items() if k != "generated"}}
