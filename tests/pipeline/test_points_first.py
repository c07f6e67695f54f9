"""A contribution's points reach the board before their intervals, with a real worker, and the pages say which
part is still being computed: never a new point beside an old interval unlabelled."""

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.test import Client

from leaderboard.recompute import publish
from pages.wording import INTERVALS_PENDING_NOTE
from tests.cycles.stored import make_contributor, make_cycles
from tests.cycles.wire import envelope
from tests.pipeline import workers

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: these tests run a real worker over Redis"),
]

# The note's first words: what the page prints of it, whatever it escapes further on.
NOTE = INTERVALS_PENDING_NOTE.split(":")[0]


@pytest.fixture
def slow_worker() -> Iterator[Any]:
    with workers.running_worker() as process:
        yield process


def served_meta(client: Client) -> dict[str, Any]:
    response = client.get("/api/v1/pool.json")
    assert response.status_code == 200
    meta: dict[str, Any] = response.json()["meta"]
    return meta


def wait_for(client: Client, done: Any, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        meta = served_meta(client)
        if done(meta):
            return meta
        time.sleep(0.1)
    raise AssertionError(f"not on the board within {seconds} s: {served_meta(client)}")


def test_a_contributions_points_show_before_its_intervals_and_the_pages_mark_them(slow_worker, client: Client):
    make_cycles(make_contributor(), count=300, seed=3)
    make_cycles(make_contributor(), count=300, seed=4, key_offset=10_000)
    before = publish()
    assert before is not None
    assert NOTE not in client.get("/").content.decode()

    # The whole snapshot's first statement on the score history waits while this holds the table; the points,
    # which write none, do not. So the points are seen alone, however fast the intervals would follow.
    with psycopg.connect(workers.child_database_env()["DATABASE_URL"]) as holder:
        holder.execute("LOCK TABLE leaderboard_groupscore IN ACCESS EXCLUSIVE MODE")
        response = client.post("/api/v1/contributions", envelope(10), content_type="application/json")
        assert response.status_code == 202, response.content
        points = wait_for(client, lambda meta: meta["snapshot"] != str(before.id), 30)
        # The first snapshot that counts the contribution holds its points alone, and says so.
        assert points["judged"] > before.judged
        assert points["intervals"] == "pending"
        groups = client.get("/api/v1/pool.json").json()["views"]["modelCombo"]["groups"]
        assert groups and all(group["ci"] is None for group in groups)
        page = client.get("/").content.decode()
        assert NOTE in page
        assert 'class="verdict' not in page  # no verdict read from point places
        holder.rollback()

    whole = wait_for(client, lambda meta: "intervals" not in meta, 120)
    assert int(whole["snapshot"]) > int(points["snapshot"])
    assert whole["judged"] == points["judged"]
    groups = client.get("/api/v1/pool.json").json()["views"]["modelCombo"]["groups"]
    assert any(group["ci"] is not None for group in groups)
    assert NOTE not in client.get("/").content.decode()
