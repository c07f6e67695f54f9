"""Recomputes are spaced by RECOMPUTE_MIN_INTERVAL: a flood of contributions costs one recompute per
interval, and the last of them is still published, within the interval and two recomputes."""

import time

import pytest
from django.conf import settings
from django.test import Client, override_settings

from leaderboard import recompute
from leaderboard.coordination import COOLDOWN_KEY, RedisCoordinator, coordinator
from leaderboard.models import Snapshot
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline import workers
from tests.pipeline.test_worker import envelope

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: the cooldown and the broker live in Redis"),
]


def redis_coordinator() -> RedisCoordinator:
    coord = coordinator()
    assert isinstance(coord, RedisCoordinator)
    return coord


@override_settings(RECOMPUTE_MIN_INTERVAL=2)
def test_it_leaves_work_owed_during_the_cooldown_and_claims_one_check_for_its_end() -> None:
    coord = redis_coordinator()
    make_cycles(make_contributor(), count=60, seed=3)
    coord.mark_pending()
    assert recompute.run_owed().published is not None
    make_cycles(make_contributor(), count=60, seed=4, key_offset=1000)
    coord.mark_pending()

    during_cooldown = recompute.run_owed()
    assert during_cooldown.published is None
    assert coord.is_pending(), "work arriving during the cooldown stays owed"
    first_check = during_cooldown.check_again_in
    assert first_check is not None and 0 < first_check <= 2
    assert recompute.run_owed().check_again_in is None, "a burst schedules one check, not one each"
    assert workers.whole_snapshots() == 1  # one recompute: its points, then the whole snapshot

    while coord.client.exists(COOLDOWN_KEY):
        time.sleep(0.05)
    published = recompute.run_owed().published
    assert published is not None and published.cycles == 120
    assert not coord.is_pending()


@pytest.fixture
def spaced_worker():
    """A worker recomputing at most once every 3 seconds."""
    workers.forget_queued_recomputes(coordinator())
    process = workers.start_worker(("RECOMPUTE_MIN_INTERVAL", "3"))
    try:
        workers.wait_for_worker(process)
        yield process
    finally:
        workers.stop(process)


def test_it_publishes_a_burst_from_many_installs_in_few_snapshots_and_the_last_one_in_time(
    spaced_worker, client: Client
) -> None:
    make_cycles(make_contributor(), count=2000, seed=5)
    burst_seconds, sends = 6.0, 40
    started = time.monotonic()
    for number in range(sends):
        response = client.post("/api/v1/contributions", envelope(6), content_type="application/json")
        assert response.status_code == 202, response.content
        time.sleep(max(0.0, started + burst_seconds * (number + 1) / sends - time.monotonic()))
    last = client.post("/api/v1/contributions", envelope(12, builder="glm-5.2"), content_type="application/json")
    assert last.status_code == 202
    acknowledged = time.monotonic()

    # Freshness: the cooldown, a recompute already running, and the one that reads the last send.
    deadline = acknowledged + 3 + 2 * 5 + 2
    labels: set[str] = set()
    while time.monotonic() < deadline and "deepseek-v4 → glm-5.2" not in labels:
        newest = Snapshot.objects.published().first()
        labels = {g["label"] for g in newest.views["modelCombo"]["groups"]} if newest else set()
        time.sleep(0.2)
    assert "deepseek-v4 → glm-5.2" in labels, "the last contribution must be published within the goal"
    published = workers.whole_snapshots()  # each recompute's, after points of its own
    # One per 3-second interval of the burst, the first right away, and the one after the last send.
    assert published <= (time.monotonic() - started) / 3 + 2, f"{published} snapshots for {sends + 1} contributions"
    time.sleep(4)
    assert not coordinator().is_pending(), "nothing acknowledged is left owed"
