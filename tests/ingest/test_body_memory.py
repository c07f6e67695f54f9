"""A web process's memory is bounded by design: what a body may cost is decided before it is parsed, the
throttles come before the parse, and the parsed body is gone when its request ends."""

from __future__ import annotations

import gc
import http.client
import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from core.throttles import body_budget
from ingest.bodies import most_separators
from ingest.columns import SCHEMA_3_COLUMNS
from tests.cycles.wire import envelope
from tests.ingest.conftest import Api, stored_counts
from tests.pipeline.workers import deployed_gunicorn

pytestmark = pytest.mark.django_db

MIB = 1024 * 1024


def objects_rows(count: int, *, install: str | None = None, end: bytes = b"]}") -> bytes:
    """A schema-3 envelope whose rows are `count` `{}` objects: 3 bytes each sent, 72 parsed."""
    head = json.dumps({**envelope(0, install=install), "rows": []}).encode()[: -len(b"]}")]
    return head + b",".join([b"{}"] * count) + end


@override_settings(INGEST_MAX_ROWS=1000)
def test_a_body_of_more_values_than_any_valid_one_is_refused_413_before_it_is_parsed(api: Api) -> None:
    # Cut short: parsed, it would be a 400 (not JSON); refused on its count alone, it is a 413.
    raw = objects_rows(most_separators(1000), end=b"")

    response = api.contribute(raw)

    assert response.status_code == 413, response.content[:300]
    assert response.json() == {"error": response.json()["error"], "errors": []}
    assert "more values than 1000 rows of 26 columns" in response.json()["error"]
    assert stored_counts() == (0, 0, 0)


@override_settings(INGEST_MAX_ROWS=1000)
def test_the_largest_valid_envelope_is_not_refused_on_its_count(api: Api) -> None:
    body = envelope(1000)
    raw = json.dumps(body)
    assert len(body["rows"][0]) == len(SCHEMA_3_COLUMNS)

    response = api.contribute(raw)

    assert response.status_code == 202, response.content[:300]
    assert response.json()["inserted"] == 1000


@override_settings(INGEST_RATE_PER_INSTALL="1/minute", INGEST_RATE_PER_ADDRESS="1000/minute")
def test_an_install_over_its_rate_is_refused_429_before_its_body_is_parsed(api: Api) -> None:
    install = str(uuid.uuid4())
    first = api.contribute(envelope(1, install=install))

    # Not JSON past its install: parsed, it would be a 400.
    again = api.contribute(json.dumps(envelope(1, install=install))[:-3])

    assert first.status_code == 202
    assert again.status_code == 429, again.content[:300]
    assert again.json()["error"].startswith("Too many requests")


@override_settings(INGEST_RATE_PER_INSTALL="1/minute", INGEST_RATE_PER_ADDRESS="1000/minute")
def test_an_install_named_with_escapes_is_still_counted_once_parsed(api: Api) -> None:
    install = str(uuid.uuid4())
    escaped = json.dumps(envelope(1, install=install)).replace('"install"', '"\\u0069nstall"')

    answers = [api.contribute(escaped).status_code for _ in range(2)]

    assert answers == [202, 429]


@override_settings(INGEST_RATE_PER_ADDRESS="1/minute")
def test_an_address_over_its_rate_is_refused_429_before_its_body_is_read(api: Api) -> None:
    api.contribute(envelope(1), REMOTE_ADDR="198.51.100.31")

    again = api.contribute("{not json", REMOTE_ADDR="198.51.100.31")

    assert again.status_code == 429


def test_every_body_counts_against_the_budget_however_small(api: Api, settings: Any) -> None:
    small = json.dumps(envelope(1))
    assert len(small) < 64 * 1024
    held = settings.INGEST_BODY_BYTES_IN_FLIGHT - len(small) + 1  # one byte short of room for it
    assert body_budget.take(held)
    try:
        refused = api.contribute(small)
    finally:
        body_budget.give_back(held)

    assert refused.status_code == 503
    assert body_budget.held == 0


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.usefixtures("collector_off")
def test_the_parsed_body_is_freed_when_its_request_ends_not_by_the_collector(api: Api, settings: Any) -> None:
    """With the collector off, only a cycle could keep the parsed rows (each a list the collector tracks):
    what a collection then finds unreachable is the request's own few dozen objects, not the rows."""
    body = envelope(1)
    body["rows"] = [[]] * (settings.INGEST_MAX_ROWS + 1)  # parsed whole, then 413 for its row count
    raw = json.dumps(body)
    del body

    response = api.contribute(raw)
    status = response.status_code
    del response
    unreachable = gc.collect()

    assert status == 413
    assert unreachable < 5_000


def worker_pid(log: Path) -> int:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = re.search(r"Booting worker with pid: (\d+)", log.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        time.sleep(0.1)
    raise AssertionError("no worker booted")


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found is not None
    return int(found.group(1)) / 1024


def post(port: int, raw: bytes) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", "/api/v1/contributions", body=raw, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.mark.django_db(transaction=True)
def test_a_gunicorn_worker_gives_back_what_large_bodies_took() -> None:
    """Three bodies that are parsed whole (100,000 rows of 26 strings each, an install that is not one: 400
    after every row is read) and three of 64 MiB of `{}`: the worker ends within 100 MB of where it began."""
    rows = [[f"{i:05d}{j:02d}" for j in range(26)] for i in range(100_000)]
    parsed_whole = json.dumps({**envelope(0), "install": "not-an-install", "rows": rows}).encode()
    del rows
    objects = objects_rows((64 * MIB - 4096) // 3)
    with deployed_gunicorn(WEB_WORKERS="1", INGEST_RATE_PER_ADDRESS="1000/minute") as (port, log):
        pid = worker_pid(log)
        assert post(port, json.dumps(envelope(1)).encode()) == 202  # everything a request needs is loaded
        before = rss_mb(pid)
        answers = [post(port, parsed_whole) for _ in range(3)] + [post(port, objects) for _ in range(3)]
        time.sleep(1)
        after = rss_mb(pid)

    assert answers == [400, 400, 400, 413, 413, 413]
    assert after - before < 100, f"{before:.0f} MB -> {after:.0f} MB"


def test_rows_full_of_objects_are_refused_400_naming_rows_before_they_are_parsed(api: Api) -> None:
    # Cut short: parsed, it would be "not valid JSON"; refused on its braces alone, it names `rows`.
    raw = objects_rows(200_000, end=b"")

    response = api.contribute(raw)

    assert response.status_code == 400, response.content[:300]
    assert response.json()["errors"] == [
        {"row": None, "col": "rows", "message": response.json()["errors"][0]["message"]}
    ]
    assert "must be arrays of JSON scalars" in response.json()["errors"][0]["message"]
    assert stored_counts() == (0, 0, 0)


def test_a_few_object_rows_still_get_each_its_rows_error(api: Api) -> None:
    body = envelope(3)
    body["rows"][1] = {"cycle_key": "x"}

    response = api.contribute(body)

    assert response.status_code == 400
    assert response.json()["errors"][0]["row"] == 1
