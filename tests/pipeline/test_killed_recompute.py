"""A recompute whose process dies (SIGKILL, as the OOM killer does) leaves nothing stuck.

Real processes over real Redis and the test database: a Celery worker killed while it
scores, and lock holders killed while they hold the lock.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from leaderboard import recompute
from leaderboard.coordination import LOCK_KEY, PENDING_KEY, RedisCoordinator, coordinator, exclusive
from leaderboard.models import Snapshot
from leaderboard.tasks import recompute_rankings
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline import workers

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: the lock and the broker live in Redis"),
]

HOLD_THE_LOCK = """
import time
from pathlib import Path
from leaderboard.coordination import coordinator, exclusive
with exclusive(coordinator()) as holding:
    print("holding" if holding else "refused", flush=True)
    time.sleep(600)
"""


def redis_coordinator() -> RedisCoordinator:
    coord = coordinator()
    assert isinstance(coord, RedisCoordinator)
    return coord


@contextmanager
def worker_scoring_8000_cycles(*, resamples: int, pool: str = "solo") -> Iterator[subprocess.Popen[bytes]]:
    """A worker that has started a queued recompute and loaded its 8,000 cycles, handed over the moment it says
    so: scoring their few hundred cells takes it a second or two more, even with many resamples. Stopped (or
    reaped) on the way out."""
    worker = workers.start_worker(("SCORING_RESAMPLES", str(resamples)), pool=pool)
    try:
        workers.wait_for_worker(worker)
        redis_coordinator().mark_pending()
        recompute_rankings.delay()
        workers.wait_for_line(worker, b"recompute: loaded 8000 cycles", 60)
        yield worker
    finally:
        workers.stop(worker)


def start_lock_holder(lock_seconds: int) -> subprocess.Popen[bytes]:
    env = workers.child_database_env()
    env["RECOMPUTE_LOCK_SECONDS"] = str(lock_seconds)
    env["DJANGO_SETTINGS_MODULE"] = "pragmatikos.settings"
    command = [sys.executable, "-c", "import django; django.setup()\n" + HOLD_THE_LOCK]
    return subprocess.Popen(command, cwd=workers.REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_it_publishes_within_60_seconds_of_restarting_a_worker_killed_mid_recompute() -> None:
    coord = redis_coordinator()
    workers.publish_then_store_more()
    workers.forget_queued_recomputes(coord)

    with worker_scoring_8000_cycles(resamples=20000) as doomed:
        workers.kill(doomed)

    # What the dead worker left: its lock, lapsing within its time to live, and the recompute still owed.
    assert 0 < coord.client.ttl(LOCK_KEY) <= settings.RECOMPUTE_LOCK_SECONDS
    assert coord.is_pending()
    assert Snapshot.objects.count() == 1

    with tempfile.TemporaryFile() as log:
        restarted = time.monotonic()
        worker = workers.start_worker(output=log)
        try:
            while Snapshot.objects.count() < 2:
                waited = time.monotonic() - restarted
                if waited > 60:
                    log.seek(0)
                    pytest.fail("no new snapshot 60 s after the restart:\n" + log.read().decode()[-3000:])
                assert worker.poll() is None, "the restarted worker exited"
                time.sleep(0.5)
            print(f"new snapshot {time.monotonic() - restarted:.1f} s after the restart")
        finally:
            workers.stop(worker)
    newest = Snapshot.objects.latest("id")
    assert newest.cycles == 8000
    assert not coord.is_pending()
    assert not coord.client.exists(LOCK_KEY)


def test_it_redoes_a_recompute_whose_pool_process_is_killed_without_any_restart() -> None:
    # The OOM killer's case: the worker's child process dies, its parent lives on.
    coord = redis_coordinator()
    workers.publish_then_store_more()
    workers.forget_queued_recomputes(coord)

    with worker_scoring_8000_cycles(resamples=20000, pool="prefork") as worker:
        children = Path(f"/proc/{worker.pid}/task/{worker.pid}/children").read_text().split()
        assert len(children) == 1, children
        os.kill(int(children[0]), signal.SIGKILL)
        killed = time.monotonic()
        # The task is put back at once and turned away by the dead child's lock; it looks
        # again when the lock lapses.
        workers.wait_for_line(worker, b"recompute: loaded 8000 cycles", 60)
        restarted = time.monotonic() - killed
        workers.wait_for_line(worker, b"(scores with intervals)", 120)  # after the points, the whole snapshot
        print(f"redone {restarted:.1f} s, published {time.monotonic() - killed:.1f} s after the kill")
        assert restarted <= settings.RECOMPUTE_LOCK_SECONDS + 10
    assert workers.whole_snapshots() == 2  # each after points of its own
    assert Snapshot.objects.latest("id").cycles == 8000
    assert not coord.is_pending()


def test_it_renews_a_live_holders_lock_past_its_time_to_live() -> None:
    coord = redis_coordinator()
    holder = start_lock_holder(lock_seconds=2)
    try:
        workers.wait_for_line(holder, b"holding", 30)
        token = coord.client.get(LOCK_KEY)
        assert token is not None
        # Three lifetimes later the same holder still has it.
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            assert coord.client.get(LOCK_KEY) == token, "the live holder's lock lapsed"
            time.sleep(0.25)
        assert not coord.try_lock()
    finally:
        workers.reap(holder)
        coord.client.delete(LOCK_KEY)


def test_it_lets_a_dead_holders_lock_lapse_within_its_time_to_live() -> None:
    coord = redis_coordinator()
    holder = start_lock_holder(lock_seconds=3)
    try:
        workers.wait_for_line(holder, b"holding", 30)
        time.sleep(4)  # past one lifetime: the lock is renewed, not its first grant
    finally:
        workers.kill(holder)
    killed = time.monotonic()
    assert coord.client.exists(LOCK_KEY)
    while coord.client.exists(LOCK_KEY):
        assert time.monotonic() - killed < 3.5, "the dead holder's lock outlived its time to live"
        time.sleep(0.1)
    assert coord.try_lock()
    coord.unlock()


def test_it_grants_the_lock_for_30_seconds_at_most_by_default() -> None:
    coord = redis_coordinator()
    with exclusive(coord) as holding:
        assert holding
        assert 0 < coord.client.ttl(LOCK_KEY) <= 30


def test_it_keeps_the_recompute_owed_when_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    coord = redis_coordinator()
    make_cycles(make_contributor(), count=50, seed=3)
    coord.mark_pending()

    def fail(**_: object) -> None:
        raise RuntimeError("scoring failed")

    monkeypatch.setattr(recompute, "publish", fail)
    with pytest.raises(RuntimeError):
        recompute.run_owed()
    assert coord.is_pending()
    assert not coord.client.exists(LOCK_KEY)

    monkeypatch.undo()
    assert recompute.run_owed().published is not None
    assert not coord.is_pending()


@override_settings(RECOMPUTE_MIN_INTERVAL=0)  # the flag alone; the spacing of recomputes is tested on its own
def test_it_keeps_owed_a_contribution_that_arrives_during_a_recompute(monkeypatch: pytest.MonkeyPatch) -> None:
    coord = redis_coordinator()
    make_cycles(make_contributor(), count=50, seed=3)
    coord.mark_pending()
    marks: list[object] = []
    real = recompute.publish

    def recompute_while_a_contribution_arrives(**kwargs: bool) -> Snapshot | None:
        marks.append(coord.client.get(PENDING_KEY))
        if len(marks) == 1:
            make_cycles(make_contributor(), count=50, seed=4, key_offset=1000)
            coord.mark_pending()
        return real(**kwargs)

    monkeypatch.setattr(recompute, "publish", recompute_while_a_contribution_arrives)
    recompute.run_owed()

    assert marks == [b"1", b"2"]  # the second contribution got its own recompute
    assert Snapshot.objects.latest("id").cycles == 100
    assert not coord.is_pending()
