"""/healthz: the database, Redis and the newest snapshot's age, 503 naming what is down.

The stopped Redis is a redis-server this test starts and stops, behind gunicorn as deployed;
the machine's own Redis is never touched.
"""

import http.client
import json
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from leaderboard.recompute import publish
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline.workers import deployed_gunicorn
from tests.redis_servers import OwnRedis


def health_of(port: int, host: str) -> tuple[int, dict[str, str], dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/healthz", headers={"Host": host})
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    return response.status, dict(response.getheaders()), body


@pytest.fixture
def own_redis() -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    with OwnRedis() as server:
        yield server.port, server.process


@pytest.mark.django_db
def test_it_reports_the_database_redis_and_the_newest_snapshots_age(
    client: Client, django_assert_max_num_queries: Any
) -> None:
    assert client.get("/healthz").json()["snapshot"] is None  # nothing published yet, and still healthy
    make_cycles(make_contributor(), count=30, seed=3)
    snapshot = publish()
    assert snapshot is not None

    with django_assert_max_num_queries(1):
        response = client.get("/healthz")

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert (body["status"], body["database"], body["redis"]) == ("ok", "ok", "ok")
    assert body["snapshot"]["id"] == snapshot.id
    assert 0 <= body["snapshot"]["age_seconds"] < 60


@pytest.mark.django_db
def test_it_says_redis_is_not_used_in_the_embedded_default(client: Client, settings: Any) -> None:
    settings.REDIS_URL = ""
    body = client.get("/healthz").json()
    assert (body["status"], body["redis"]) == ("ok", "not used")


@pytest.mark.django_db(transaction=True)
def test_it_answers_503_naming_a_stopped_redis(own_redis: tuple[int, subprocess.Popen[bytes]]) -> None:
    port, server = own_redis
    with deployed_gunicorn(REDIS_URL=f"redis://127.0.0.1:{port}/0", ALLOWED_HOSTS="example.org") as (web, _):
        # The container's health check asks on the app's own address, a host no page is served under.
        status, _, body = health_of(web, f"127.0.0.1:{web}")
        assert (status, body["redis"]) == (200, "ok")
        assert health_of(web, "example.org")[0] == 200

        server.terminate()
        server.wait(timeout=10)
        started = time.monotonic()
        status, headers, body = health_of(web, f"127.0.0.1:{web}")
        seconds = time.monotonic() - started

    assert status == 503
    assert (body["status"], body["database"], body["redis"]) == ("down", "ok", "down")
    assert body["error"] == "redis unreachable."
    assert int(headers["Retry-After"]) > 0
    assert seconds < 2, "a stopped Redis is reported at once, not after a long timeout"
