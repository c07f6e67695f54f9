"""With the cache (Redis) unreachable, pages and downloads come from PostgreSQL: slower, never a 500.

The cache is really unreachable here: the settings point it at a loopback port nothing listens on,
or at a redis-server this test starts and then stops. The machine's own Redis is never touched.
"""

import logging
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core import page_cache, soft_cache
from core.backend import process_lock
from leaderboard import cycles_file, windows
from leaderboard.models import Snapshot
from tests.cycles.wire import envelope
from tests.pages.conftest import page_paths, ranked_labels
from tests.ports import free_port
from tests.redis_servers import OwnRedis, redis_cache


@pytest.fixture
def unreachable_cache(settings: Any) -> Iterator[None]:
    """The cache points at a loopback port that nothing listens on."""
    settings.CACHES = redis_cache(free_port())
    page_cache.forget_process_copies()
    soft_cache.reset()
    yield
    soft_cache.reset()
    page_cache.forget_process_copies()


def page_and_download_paths(snapshot: Snapshot) -> list[tuple[str, dict[str, str]]]:
    since = str(timezone.now().date().replace(day=1))
    return [*page_paths(snapshot), ("/api/v1/pool.json", {}), ("/api/v1/pool.json", {"since": since})]


def test_it_serves_every_page_and_download_with_the_cache_unreachable(
    demo_snapshot: Snapshot, unreachable_cache: None, client: Client
) -> None:
    for path, params in page_and_download_paths(demo_snapshot):
        response = client.get(path, params)
        assert response.status_code == 200, (path, params)
        if not path.startswith("/api/"):
            assert response["X-Snapshot"] == str(demo_snapshot.id), (path, params)
    html = client.get("/", {"view": "model"}).content.decode()
    assert ranked_labels(demo_snapshot, "model")[0] in html


def test_it_sends_the_cycles_export_with_the_cache_unreachable(
    demo_snapshot: Snapshot, unreachable_cache: None, client: Client
) -> None:
    before = client.get("/data/cycles.csv.gz")
    assert before.status_code == 503 and int(before["Retry-After"]) > 0, "503 before the first export, not 500"
    export = cycles_file.write_cycles_export(snapshot_id=demo_snapshot.id)
    assert export is not None
    response = client.get("/data/cycles.csv.gz")
    assert response.status_code == 200
    assert response["X-Snapshot"] == str(demo_snapshot.id)
    assert b"".join(response.streaming_content) == export.path.read_bytes()  # type: ignore[attr-defined]


def test_it_logs_one_warning_for_a_burst_of_requests_without_the_cache(
    demo_snapshot: Snapshot, unreachable_cache: None, client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="core.redis_breaker"):
        for _ in range(3):
            page_cache.forget_process_copies()
            assert client.get("/").status_code == 200
    warnings = [record for record in caplog.records if record.name == "core.redis_breaker"]
    assert len(warnings) == 1
    assert "unreachable" in warnings[0].getMessage()


def test_it_answers_503_for_a_second_window_while_one_computes_in_this_process(
    demo_snapshot: Snapshot, unreachable_cache: None, client: Client
) -> None:
    # Without the cache's lock, this process's own lock stands for "a window is computing".
    assert process_lock(windows.WINDOW_LOCK).acquire(blocking=False)
    try:
        page = client.get("/", {"window": "30"})
        api = client.get("/api/v1/pool.json", {"since": "2026-01-01"})
    finally:
        process_lock(windows.WINDOW_LOCK).release()
    assert page.status_code == 503 and int(page["Retry-After"]) > 0
    assert api.status_code == 503 and int(api["Retry-After"]) > 0
    assert client.get("/", {"window": "30"}).status_code == 200


def test_it_keeps_ingest_at_503_with_retry_after_with_the_cache_unreachable(
    db: None, unreachable_cache: None, client: Client
) -> None:
    response = client.post("/api/v1/contributions", envelope(2), content_type="application/json")
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0


@pytest.fixture
def own_redis(settings: Any) -> Iterator[OwnRedis]:
    """A redis-server of this test's own on a free port, for the cache only; stopped by the test or at teardown."""
    server = OwnRedis()
    settings.CACHES = redis_cache(server.port)
    page_cache.forget_process_copies()
    soft_cache.reset()
    yield server
    server.close()
    soft_cache.reset()
    page_cache.forget_process_copies()


def test_it_keeps_serving_when_its_redis_stops(demo_snapshot: Snapshot, own_redis: OwnRedis, client: Client) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    paths: list[tuple[str, dict[str, str]]] = [("/", {}), ("/pairing/", {"view": "modelCombo", "label": label})]
    before = [client.get(path, params) for path, params in paths]
    assert [response.status_code for response in before] == [200, 200]
    assert soft_cache.get_many(["leaderboard:generation"]) is not None, "the cache answered while it ran"

    own_redis.close()
    page_cache.forget_process_copies()  # nothing of the page left in this process: it must be built anew

    after = [client.get(path, params) for path, params in paths]
    assert [response.status_code for response in after] == [200, 200]
    assert [response.content for response in after] == [response.content for response in before]
    assert soft_cache.is_down()
    install = {"install": str(uuid.uuid4())}
    retract = client.post("/api/v1/contributions/retract", install, content_type="application/json")
    assert retract.status_code == 503


def test_it_serves_the_lab_pages_with_the_cache_unreachable(
    demo_snapshot: Snapshot, unreachable_cache: None, client: Client
) -> None:
    # The lab's pages name their own cache generation: read through the same soft cache as the leaderboard's.
    for path in ("/lab/", "/lab/beside/", "/data/lab.csv"):
        assert client.get(path).status_code == 200, path


def test_it_keeps_counting_new_windows_per_address_in_this_process_with_the_cache_unreachable(
    demo_snapshot: Snapshot, unreachable_cache: None, client: Client, settings: Any
) -> None:
    settings.WINDOW_RATE_PER_ADDRESS = "2/hour"
    today = timezone.now().date()
    days = [str(today - timedelta(days=back)) for back in (1, 2, 3)]
    answers = [client.get("/api/v1/pool.json", {"since": day}) for day in days]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert 0 < int(answers[2]["Retry-After"]) <= 3600
    page = client.get("/", {"window": "custom", "since": str(today - timedelta(days=4))})
    assert page.status_code == 429 and int(page["Retry-After"]) > 0
