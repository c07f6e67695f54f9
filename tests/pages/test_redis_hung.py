"""A Redis that hangs (stopped, not down) costs a web process one socket timeout, not one per request.

The test's own redis-server is stopped with SIGSTOP: its port still accepts connections and nothing
is answered, so every call waits its timeout. After one such wait, the process's breaker
(core.redis_breaker) answers every caller at once: ingest and the retraction form with 503 and
Retry-After, the pages and the stats from PostgreSQL. Counted two ways: the requests that took as long
as the timeout, and the calls that really failed.
"""

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client

from core import page_cache, redis_breaker
from leaderboard.models import Snapshot
from tests.cycles.wire import envelope
from tests.pages.conftest import interval_pages
from tests.redis_servers import OwnRedis, redis_cache

# Well above what a page takes on a loaded 2-core machine (0.67 s was seen), so a slow page is not
# counted as a wait for Redis.
TIMEOUT = 1.5
CONTRIBUTIONS = "/api/v1/contributions"


@pytest.fixture
def own_redis(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[OwnRedis]:
    server = OwnRedis()
    settings.CACHES = redis_cache(server.port)
    settings.REDIS_TIMEOUT = TIMEOUT
    # Longer than the test's requests take on a busy machine: no probe falls inside them.
    monkeypatch.setattr(redis_breaker, "DOWN_SECONDS", 60.0)
    page_cache.forget_process_copies()
    redis_breaker.reset()
    yield server
    server.close()
    redis_breaker.reset()
    page_cache.forget_process_copies()


def timed(request: Callable[..., Any], *args: Any) -> tuple[HttpResponse, float]:
    started = time.monotonic()
    response = request(*args)
    return response, time.monotonic() - started


def waited_the_timeout(seconds: list[float]) -> int:
    return sum(1 for s in seconds if s >= 0.8 * TIMEOUT)


def post_contribution(client: Client) -> HttpResponse:
    return client.post(CONTRIBUTIONS, envelope(2), content_type="application/json")  # type: ignore[return-value]


def test_ingest_waits_for_a_hung_redis_once_then_answers_503_at_once(
    db: None, own_redis: OwnRedis, client: Client
) -> None:
    assert post_contribution(client).status_code == 202  # the counters answered, over a pooled connection
    own_redis.hang()
    seconds = []
    for _ in range(8):
        response, took = timed(post_contribution, client)
        assert response.status_code == 503
        assert int(response["Retry-After"]) > 0
        seconds.append(took)
    assert waited_the_timeout(seconds) == 1, seconds
    assert redis_breaker.failures() == 1


def test_pages_forms_and_ingest_share_one_wait_for_a_hung_redis(
    demo_snapshot: Snapshot, own_redis: OwnRedis, client: Client
) -> None:
    pages = [*interval_pages(demo_snapshot), ("/api/v1/stats", {})]
    assert [client.get(path, params).status_code for path, params in pages] == [200] * len(pages)
    form = Client()
    token = form.get("/contribute/").cookies["csrftoken"].value
    own_redis.hang()
    seconds = []
    for _ in range(2):
        for path, params in pages:
            page_cache.forget_process_copies()  # no copy in this process: each page asks the shared cache
            response, took = timed(client.get, path, params)
            assert response.status_code == 200, path
            seconds.append(took)
        response, took = timed(post_contribution, client)
        assert response.status_code == 503 and int(response["Retry-After"]) > 0
        seconds.append(took)
        retract = {"install": str(uuid.uuid4()), "csrfmiddlewaretoken": token}
        response, took = timed(form.post, "/contribute/retract/", retract)
        assert response.status_code == 503 and int(response["Retry-After"]) > 0
        seconds.append(took)
    assert waited_the_timeout(seconds) == 1, seconds
    assert redis_breaker.failures() == 1


def test_it_asks_a_redis_that_came_back_once_the_down_time_is_over(
    db: None, own_redis: OwnRedis, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_breaker, "DOWN_SECONDS", 0.2)
    own_redis.hang()
    assert post_contribution(client).status_code == 503
    assert redis_breaker.is_down()
    own_redis.resume()
    time.sleep(0.3)
    assert post_contribution(client).status_code == 202
    assert not redis_breaker.is_down()
    assert redis_breaker.failures() == 1
