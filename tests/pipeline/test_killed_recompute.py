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
from pathlib import Path

import pytest
from django.conf import settings

from leaderboard import services
from leaderboard.coordination import LOCK_KEY, PENDING_KEY, RedisCoordinator, coordinator, exclusive
from leaderboard.models import Snapshot
from leaderboard.services import recompute_snapshot
from leaderboard.tasks import recompute_rankings
from pragmatikos.celery import app as celery_app
from tests.factories import make_contributor, make_cycles
from tests.pipeline.workers import REPO, child_database_env, start_worker

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


def wait_for_line(process: subprocess.Popen[bytes], marker: bytes, seconds: float) -> bytes:
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline and process.poll() is None:
        seen += process.stdout.readline()
    assert marker in seen, seen.decode(errors="replace")[-3000:]
    return seen


def wait_for_worker(process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not celery_app.control.ping(timeout=0.5):
        assert process.poll() is None, "the worker exited at start"
        assert time.monotonic() < deadline, "the worker did not start within 30 s"


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_lock_holder(lock_seconds: int) -> subprocess.Popen[bytes]:
    env = child_database_env()
    env["RECOMPUTE_LOCK_SECONDS"] = str(lock_seconds)
    env["DJANGO_SETTINGS_MODULE"] = "pragmatikos.settings"
    command = [sys.executable, "-c", "import django; django.setup()\n" + HOLD_THE_LOCK]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_it_publishes_within_60_seconds_of_restarting_a_worker_killed_mid_recompute() -> None:
    coord = redis_coordinator()
    make_cycles(make_contributor(), count=4000, seed=7)
    old = recompute_snapshot()
    assert old is not None
    make_cycles(make_contributor(), count=4000, seed=8, key_offset=10_000)
    celery_app.control.purge()
    coord.take_pending()

    # Many resamples keep the first worker scoring long after it has loaded the cycles.
    doomed = start_worker(("SCORING_RESAMPLES", "20000"))
    try:
        wait_for_worker(doomed)
        coord.mark_pending()
        recompute_rankings.delay()
        wait_for_line(doomed, b"recompute: loaded 8000 cycles", 60)
        time.sleep(1)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(timeout=30)
    finally:
        if doomed.poll() is None:
            doomed.kill()
            doomed.wait()

    # What the dead worker left: its lock, lapsing within its time to live, and the recompute still owed.
    assert 0 < coord.client.ttl(LOCK_KEY) <= settings.RECOMPUTE_LOCK_SECONDS
    assert coord.is_pending()
    assert Snapshot.objects.count() == 1

    with tempfile.TemporaryFile() as log:
        restarted = time.monotonic()
        worker = start_worker(output=log)
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
            stop(worker)
    newest = Snapshot.objects.latest("id")
    assert newest.cycles == 8000
    assert not coord.is_pending()
    assert not coord.client.exists(LOCK_KEY)


def test_it_redoes_a_recompute_whose_pool_process_is_killed_without_any_restart() -> None:
    # The OOM killer's case: the worker's child process dies, its parent lives on.
    coord = redis_coordinator()
    make_cycles(make_contributor(), count=4000, seed=7)
    assert recompute_snapshot() is not None
    make_cycles(make_contributor(), count=4000, seed=8, key_offset=10_000)
    celery_app.control.purge()
    coord.take_pending()

    # Enough resamples to be killed while scoring, few enough that the redone one is quick.
    worker = start_worker(("SCORING_RESAMPLES", "4000"), pool="prefork")
    try:
        wait_for_worker(worker)
        coord.mark_pending()
        recompute_rankings.delay()
        wait_for_line(worker, b"recompute: loaded 8000 cycles", 60)
        time.sleep(1)
        children = Path(f"/proc/{worker.pid}/task/{worker.pid}/children").read_text().split()
        assert len(children) == 1, children
        os.kill(int(children[0]), signal.SIGKILL)
        killed = time.monotonic()
        # The task is put back at once and turned away by the dead child's lock; it looks
        # again when the lock lapses.
        wait_for_line(worker, b"recompute: loaded 8000 cycles", 60)
        restarted = time.monotonic() - killed
        wait_for_line(worker, b"recompute: published snapshot", 120)
        print(f"redone {restarted:.1f} s, published {time.monotonic() - killed:.1f} s after the kill")
        assert restarted <= settings.RECOMPUTE_LOCK_SECONDS + 10
    finally:
        stop(worker)
    assert Snapshot.objects.count() == 2
    assert Snapshot.objects.latest("id").cycles == 8000
    assert not coord.is_pending()


def test_it_renews_a_live_holders_lock_past_its_time_to_live() -> None:
    coord = redis_coordinator()
    holder = start_lock_holder(lock_seconds=2)
    try:
        wait_for_line(holder, b"holding", 30)
        token = coord.client.get(LOCK_KEY)
        assert token is not None
        # Three lifetimes later the same holder still has it.
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            assert coord.client.get(LOCK_KEY) == token, "the live holder's lock lapsed"
            time.sleep(0.25)
        assert not coord.try_lock()
    finally:
        holder.kill()
        holder.wait()
        coord.client.delete(LOCK_KEY)


def test_it_lets_a_dead_holders_lock_lapse_within_its_time_to_live() -> None:
    coord = redis_coordinator()
    holder = start_lock_holder(lock_seconds=3)
    try:
        wait_for_line(holder, b"holding", 30)
        time.sleep(4)  # past one lifetime: the lock is renewed, not its first grant
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
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

    monkeypatch.setattr(services, "recompute_snapshot", fail)
    with pytest.raises(RuntimeError):
        services.run_pending_recomputes()
    assert coord.is_pending()
    assert not coord.client.exists(LOCK_KEY)

    monkeypatch.undo()
    assert services.run_pending_recomputes() is not None
    assert not coord.is_pending()


def test_it_keeps_owed_a_contribution_that_arrives_during_a_recompute(monkeypatch: pytest.MonkeyPatch) -> None:
    coord = redis_coordinator()
    make_cycles(make_contributor(), count=50, seed=3)
    coord.mark_pending()
    marks: list[object] = []
    real = services.recompute_snapshot

    def recompute_while_a_contribution_arrives(**kwargs: bool) -> Snapshot | None:
        marks.append(coord.client.get(PENDING_KEY))
        if len(marks) == 1:
            make_cycles(make_contributor(), count=50, seed=4, key_offset=1000)
            coord.mark_pending()
        return real(**kwargs)

    monkeypatch.setattr(services, "recompute_snapshot", recompute_while_a_contribution_arrives)
    services.run_pending_recomputes()

    assert marks == [b"1", b"2"]  # the second contribution got its own recompute
    assert Snapshot.objects.latest("id").cycles == 100
    assert not coord.is_pending()
