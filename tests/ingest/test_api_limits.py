"""The ingest endpoints at their limits: throttles, size caps, bodies that are not JSON, and the cache down."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import override_settings

from core.throttles import LARGE_BODY_BYTES, body_budget
from ingest.models import Receipt
from tests.cycles.wire import envelope
from tests.ingest.conftest import CONTRIBUTE, PREVIEW, RETRACT, STATS, Api, stored_counts

pytestmark = pytest.mark.django_db


@override_settings(INGEST_RATE_PER_INSTALL="2/minute", INGEST_RATE_PER_ADDRESS="1000/minute")
def test_it_throttles_an_install_with_429_and_retry_after(api: Api) -> None:
    install = str(uuid.uuid4())
    answers = [api.contribute(envelope(1, install=install)).status_code for _ in range(2)]

    throttled = api.contribute(envelope(1, install=install))
    other_install = api.contribute(envelope(1))

    assert answers == [202, 202]
    assert throttled.status_code == 429
    assert 0 < int(throttled["Retry-After"]) <= 60
    assert throttled.json()["error"].startswith("Too many requests")
    assert other_install.status_code == 202
    assert Receipt.objects.count() == 3


@override_settings(INGEST_RATE_PER_INSTALL="1000/minute", INGEST_RATE_PER_ADDRESS="3/minute")
def test_it_throttles_a_client_address_across_installs(api: Api) -> None:
    answers = [api.contribute(envelope(1), REMOTE_ADDR="198.51.100.7").status_code for _ in range(4)]
    elsewhere = api.contribute(envelope(1), REMOTE_ADDR="198.51.100.8")

    assert answers == [202, 202, 202, 429]
    assert elsewhere.status_code == 202


@override_settings(INGEST_RATE_PER_ADDRESS="2/minute")
def test_it_keeps_no_address_in_the_throttle_cache(api: Api) -> None:
    api.contribute(envelope(1), REMOTE_ADDR="198.51.100.77")

    backend = caches["default"]
    if isinstance(backend, RedisCache):
        client = backend._cache.get_client()
        everything = repr([(key, client.dump(key)) for key in client.keys("*")])
    else:
        everything = repr(list(backend._cache.items()))  # type: ignore[attr-defined]
    assert "throttle_address_" in everything
    assert "198.51.100.77" not in everything


def test_it_refuses_a_body_over_the_cap_with_413(api: Api, settings: Any) -> None:
    # A valid one-row envelope padded with whitespace: only its size is wrong.
    raw = json.dumps(envelope(1)) + " " * settings.INGEST_MAX_BODY_BYTES

    response = api.contribute(raw)

    assert response.status_code == 413
    assert "larger than" in response.json()["error"]
    assert stored_counts() == (0, 0, 0)


def test_it_refuses_a_declared_length_over_the_cap_before_reading(api: Api, settings: Any) -> None:
    response = api.contribute(envelope(1), CONTENT_LENGTH=str(settings.INGEST_MAX_BODY_BYTES + 1))

    assert response.status_code == 413


def test_it_refuses_more_rows_than_the_cap_with_413(api: Api, settings: Any) -> None:
    body = envelope(1)
    body["rows"] = [[]] * (settings.INGEST_MAX_ROWS + 1)

    response = api.contribute(body)

    assert response.status_code == 413
    assert f"{settings.INGEST_MAX_ROWS} rows" in response.json()["error"]
    assert stored_counts() == (0, 0, 0)


def test_it_stores_a_whole_history_of_a_hundred_thousand_rows_in_one_request(api: Api, settings: Any) -> None:
    """The client sends every changed row at once and cannot split: the spec's floor is 100,000 rows."""
    assert settings.INGEST_MAX_ROWS >= 100_000
    body = envelope(100_000)
    raw = json.dumps(body)
    assert len(raw) <= settings.INGEST_MAX_BODY_BYTES

    response = api.contribute(raw)

    assert response.status_code == 202, response.content[:300]
    assert (response.json()["inserted"], response.json()["skipped"]) == (100_000, 0)
    assert stored_counts() == (1, 100_000, 1)


def test_it_answers_503_with_retry_after_while_the_process_holds_its_budget_of_bodies(api: Api, settings: Any) -> None:
    """Several big histories at once must not take a process down: beyond the budget they are told to wait."""
    beside_the_largest = settings.INGEST_BODY_BYTES_IN_FLIGHT - settings.INGEST_MAX_BODY_BYTES
    assert beside_the_largest >= 8 * LARGE_BODY_BYTES  # everyday sends still get in beside a body at the cap
    held = settings.INGEST_BODY_BYTES_IN_FLIGHT
    assert body_budget.take(held)  # other bodies being parsed in this process
    try:
        raw = json.dumps(envelope(1)) + " " * LARGE_BODY_BYTES
        refused = api.contribute(raw)
        small = api.contribute(envelope(2))  # every body counts: sixteen threads of small ones are not free
    finally:
        body_budget.give_back(held)
    again = api.contribute(raw)

    assert refused.status_code == 503 and int(refused["Retry-After"]) > 0
    assert "large contributions" in refused.json()["error"]
    assert small.status_code == 503
    assert again.status_code == 202
    assert stored_counts() == (1, 1, 1)
    assert body_budget.held == 0


def test_it_reads_only_so_many_bodies_larger_than_the_proxy_buffers_at_once(api: Api, settings: Any) -> None:
    """Such a body reaches the app while it is still arriving: a thread waits on its sender."""
    streamed = settings.INGEST_PROXY_BUFFER_BYTES + 1
    raw = json.dumps(envelope(1)) + " " * streamed
    slots = [streamed] * settings.INGEST_STREAMED_BODIES
    assert all(body_budget.take(size) for size in slots)  # slow uploads being read in this process
    try:
        refused = api.contribute(raw)
        small = api.contribute(envelope(2))  # within the proxy's buffer: whole before the app sees it
    finally:
        for size in slots:
            body_budget.give_back(size)
    again = api.contribute(raw)

    assert refused.status_code == 503 and int(refused["Retry-After"]) > 0
    assert (small.status_code, again.status_code) == (202, 202)
    assert stored_counts() == (2, 3, 2)  # envelope(2): a second install's two rows
    assert (body_budget.held, body_budget.streamed) == (0, 0)


def test_it_refuses_a_body_that_is_not_json_content_with_415(api: Api) -> None:
    response = api.client.post(CONTRIBUTE, data=json.dumps(envelope(1)), content_type="text/plain")

    assert response.status_code == 415
    assert set(response.json()) == {"error", "errors"}


@pytest.mark.parametrize(
    "raw",
    ["{not json", '{"schema": NaN}', '{"schema": Infinity}', "\xff\xfe", "[" * 100_000, '{"u": 1' + "0" * 5000 + "}"],
    ids=["broken", "nan", "infinity", "not-utf8", "deeply-nested", "huge-integer"],
)
def test_it_refuses_a_body_that_does_not_parse_with_400(api: Api, raw: str) -> None:
    response = api.contribute(raw)

    assert response.status_code == 400
    assert response.json() == {"error": "The body is not valid JSON.", "errors": []}


REDIS_DOWN = {"default": {"BACKEND": "core.redis_cache.FactoryRedisCache", "LOCATION": "redis://127.0.0.1:1/0"}}


@pytest.mark.parametrize("path", [CONTRIBUTE, PREVIEW, RETRACT])
def test_it_answers_503_json_with_retry_after_when_the_throttle_cache_is_down(api: Api, path: str) -> None:
    body = {"install": str(uuid.uuid4())} if path == RETRACT else envelope(2)

    with override_settings(CACHES=REDIS_DOWN):
        response = api.post(path, body)

    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": response.json()["error"], "errors": []}
    assert response.json()["error"].endswith("try again in a minute.")
    assert int(response["Retry-After"]) > 0
    assert stored_counts() == (0, 0, 0)


def test_it_still_answers_the_stats_when_the_cache_is_down(api: Api) -> None:
    api.contribute(envelope(2))

    with override_settings(CACHES=REDIS_DOWN):
        response = api.client.get(STATS)

    assert response.status_code == 200
    assert response.json()["cycles"] == 2


def test_it_answers_unknown_api_paths_and_methods_in_json(api: Api) -> None:
    missing = api.client.get("/api/v1/nothing-here")
    wrong_method = api.client.get(CONTRIBUTE)

    assert missing.status_code == 404 and set(missing.json()) == {"error", "errors"}
    assert wrong_method.status_code == 405 and set(wrong_method.json()) == {"error", "errors"}
