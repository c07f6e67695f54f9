"""The pipeline with real processes: a Celery worker over Redis, and a recompute killed halfway."""

import datetime as dt
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.test import Client

from ingest.columns import SCHEMA_3_COLUMNS
from leaderboard.coordination import LOCK_KEY, coordinator
from leaderboard.models import GroupScore, Snapshot
from leaderboard.recompute import publish
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline import workers

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: these tests run a real worker over Redis"),
]


def envelope(rows: int, *, builder: str = "kimi-k3") -> dict[str, object]:
    """A fresh install's contribution of `rows` judged cycles of deepseek-v4 planning for `builder`, today."""
    day = dt.date.today().isoformat()
    return {
        "schema": 3,
        "extractor": "26.9.0",
        "install": str(uuid.uuid4()),
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cols": list(SCHEMA_3_COLUMNS),
        "rows": [
            [f"{i:016x}", day, "kimi-k3", "moonshot", 2, "deepseek-v4", "deepseek", builder, "moonshot",
             2, 40, 6, 1, 0, 1.25, 1, 0.5, 1, 0, 4.5, 0, "high", "max", "high", "opencode", "1.4.0"]
            for i in range(rows)
        ],
    }  # fmt: skip


@pytest.fixture
def worker() -> Iterator[Any]:
    with workers.running_worker() as process:
        yield process


def test_it_shows_a_contribution_in_the_rankings_within_15_seconds(worker, client: Client) -> None:
    response = client.post("/api/v1/contributions", envelope(12), content_type="application/json")
    assert response.status_code == 202, response.content
    deadline = time.monotonic() + 15
    labels: set[str] = set()
    while time.monotonic() < deadline:
        pool = client.get("/api/v1/pool.json")
        if pool.status_code == 200:
            labels = {g["label"] for g in pool.json()["views"]["modelCombo"]["groups"]}
            if "deepseek-v4 → kimi-k3" in labels:
                break
        time.sleep(0.25)
    assert "deepseek-v4 → kimi-k3" in labels


def test_it_keeps_the_old_snapshot_when_a_recompute_is_killed_halfway() -> None:
    old = workers.publish_then_store_more()
    # Many resamples keep the child busy scoring long after it has loaded the cycles.
    child = workers.start_recompute(("SCORING_RESAMPLES", "20000"))
    try:
        workers.wait_for_line(child, b"recompute: loaded 8000 cycles", 60)
        time.sleep(0.5)
        workers.kill(child)
    finally:
        workers.reap(child)
    assert Snapshot.objects.count() == 1
    assert Client().get("/api/v1/pool.json").json()["meta"]["snapshot"] == str(old.id)
    # The killed holder's lock would expire by itself; clear it so later tests need not wait.
    coordinator().client.delete(LOCK_KEY)  # type: ignore[attr-defined]


def test_it_keeps_the_old_snapshot_when_a_recompute_is_killed_while_publishing() -> None:
    make_cycles(make_contributor(), count=300, seed=7)
    old = publish()
    assert old is not None
    scores_before = GroupScore.objects.count()
    make_cycles(make_contributor(), count=300, seed=8, key_offset=10_000)
    url = workers.child_database_env()["DATABASE_URL"]
    # Hold the score-history table: the child writes its snapshot row, then waits inside
    # the publishing transaction on its first statement on the history (the day's older
    # points go first, then the new ones), and is killed there. The probe
    # runs outside any transaction, which would otherwise freeze its view of the activity.
    with psycopg.connect(url) as holder, psycopg.connect(url, autocommit=True) as probe:
        holder.execute("LOCK TABLE leaderboard_groupscore IN ACCESS EXCLUSIVE MODE")
        child = workers.start_recompute()
        try:
            waiting = None
            deadline = time.monotonic() + 60
            while waiting is None and time.monotonic() < deadline:
                waiting = probe.execute(
                    "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query ~ '^(DELETE FROM|INSERT INTO) \"leaderboard_groupscore\"'"
                ).fetchone()
                time.sleep(0.1)
            assert waiting is not None, "the child never reached the publishing transaction"
            workers.kill(child)
        finally:
            workers.reap(child)
        holder.rollback()  # frees the table; the orphaned transaction ends once its client is found gone
        deadline = time.monotonic() + 30
        while probe.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", waiting).fetchone():
            assert time.monotonic() < deadline, "the killed recompute's transaction never ended"
            time.sleep(0.2)
    assert Snapshot.objects.count() == 1
    assert GroupScore.objects.count() == scores_before
    assert Client().get("/api/v1/pool.json").json()["meta"]["snapshot"] == str(old.id)
    coordinator().client.delete(LOCK_KEY)  # type: ignore[attr-defined]
