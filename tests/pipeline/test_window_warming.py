"""The worker warms each new snapshot's preset windows and lenses outside the visitors' slots, for the newest
snapshot only; pages never answer 429 or 503 for them meanwhile."""

import datetime as dt
import time

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from leaderboard import recompute, windows
from leaderboard.coordination import coordinator
from leaderboard.models import Snapshot
from leaderboard.windows import reserved_scopes, scope_key
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline import workers

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: these tests run a real worker over Redis"),
]

PRESET_PAGES = [{"window": "90"}, {"window": "30"}, {"harness": "opencode"}]


def publish_more(seed: int) -> Snapshot:
    """A few more cycles of the last 60 days, published: a new snapshot whose warming is queued."""
    start = dt.date.today() - dt.timedelta(days=60)
    make_cycles(make_contributor(), count=40, seed=seed, start_day=start, key_offset=1000 * seed)
    snapshot = recompute.publish()
    assert snapshot is not None
    return snapshot


def reserved_keys(snapshot: Snapshot) -> list[str]:
    today = timezone.now().date()
    return [scope_key(snapshot.id, *scope) for scope in reserved_scopes(snapshot.document, today=today)]


def computed_snapshots() -> list[int]:
    """The snapshot of each window document in the cache (one per computation: a window is computed once)."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    names = [key.decode().split("scoped:", 1)[1] for key in client.scan_iter("*scoped:*")]
    return [int(name.split(":")[0]) for name in names if not name.endswith(":samples") and name[0].isdigit()]


def wait_until_warmed(snapshot: Snapshot, seconds: float = 90) -> None:
    keys = reserved_keys(snapshot)
    deadline = time.monotonic() + seconds
    while len(cache.get_many(keys)) < len(keys):
        assert time.monotonic() < deadline, f"snapshot {snapshot.id} was not warmed within {seconds} s"
        time.sleep(0.2)


@pytest.fixture
def queue_emptied() -> None:
    workers.forget_queued_recomputes(coordinator())


def test_the_worker_warms_while_visitors_windows_fill_every_slot(queue_emptied: None, client: Client) -> None:
    first = publish_more(1)
    windows.warm_windows(snapshot_id=first.id)
    slots = windows.on_demand_slots()
    assert all(cache.add(slot, 1, 300) for slot in slots)  # every visitors' slot computing a window
    worker = workers.start_worker()
    try:
        workers.wait_for_worker(worker)
        newest = publish_more(2)
        # Until the worker has warmed the new snapshot, its preset pages show the previous one's, not kept.
        answers = [client.get("/", params) for params in PRESET_PAGES]
        assert [answer.status_code for answer in answers] == [200, 200, 200]
        wait_until_warmed(newest)
        assert all(cache.get(slot) for slot in slots), "the warming took no visitor's slot"
        for params in PRESET_PAGES:
            answer = client.get("/", params)
            assert answer.status_code == 200 and "no-cache" not in answer.get("Cache-Control", "")
        since, until = windows.preset_window(90, today=timezone.now().date())
        pool = client.get("/api/v1/pool.json", {"since": f"{since}", "until": f"{until}"})
        assert pool.status_code == 200 and pool.json()["meta"]["snapshot"] == str(newest.id)
        # A window of the visitors' own still waits for a slot: 503, never 429.
        assert client.get("/", {"window": "custom", "since": f"{since}"}).status_code == 503
    finally:
        cache.delete_many(slots)
        workers.stop(worker)


def test_a_preset_page_shows_the_previous_snapshots_window_until_the_new_one_is_warmed(
    queue_emptied: None, client: Client
) -> None:
    first = publish_more(1)
    windows.warm_windows(snapshot_id=first.id)
    newest = publish_more(2)  # no worker yet: its warming waits in the queue
    since, until = windows.preset_window(90, today=timezone.now().date())
    earlier = client.get("/api/v1/pool.json", {"since": f"{since}", "until": f"{until}"})
    assert earlier.status_code == 200 and earlier.json()["meta"]["snapshot"] == str(first.id)
    assert "no-cache" in earlier["Cache-Control"] and not earlier.has_header("ETag")
    page = client.get("/", {"window": "90"})
    assert page.status_code == 200 and "no-cache" in page["Cache-Control"]
    worker = workers.start_worker()
    try:
        workers.wait_for_worker(worker)
        wait_until_warmed(newest)
    finally:
        workers.stop(worker)
    current = client.get("/api/v1/pool.json", {"since": f"{since}", "until": f"{until}"})
    assert current.json()["meta"]["snapshot"] == str(newest.id), "the earlier window was not kept"


def test_a_burst_of_snapshots_warms_the_newest_only(queue_emptied: None) -> None:
    burst = [publish_more(seed) for seed in (1, 2, 3, 4)]  # four warmings queued, no worker yet
    worker = workers.start_worker()
    try:
        workers.wait_for_worker(worker)
        wait_until_warmed(burst[-1])
        # The queue is first in, first out: by now every earlier warming has run, and found itself overtaken.
        time.sleep(1)
    finally:
        workers.stop(worker)
    computed = computed_snapshots()
    assert set(computed) == {burst[-1].id}
    assert len(computed) == len(reserved_keys(burst[-1])), "each reserved window computed once"
