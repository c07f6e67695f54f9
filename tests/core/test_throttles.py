"""The rate throttles admit exactly their limit however many requests race for it."""

import subprocess
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
import redis
from django.conf import settings
from django.test import Client, override_settings
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from core.throttles import AddressRateThrottle, InstallRateThrottle, ThrottleUnavailableError, parse_rate
from tests.redis_servers import OwnRedis

THREADS = 16


def race(attempt: Callable[[], object], attempts_per_thread: int) -> Counter[object]:
    """Every thread starts at once (a barrier) and makes its attempts back to back."""
    results: Counter[object] = Counter()
    guard = threading.Lock()
    start = threading.Barrier(THREADS)

    def run() -> None:
        start.wait()
        for _ in range(attempts_per_thread):
            outcome = attempt()
            with guard:
                results[outcome] += 1

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def request_from(address: str) -> Request:
    return Request(APIRequestFactory().post("/api/v1/contributions", REMOTE_ADDR=address))


@pytest.mark.parametrize("limit", [1, 60, 600])
def test_it_admits_exactly_the_address_limit_to_16_racing_threads(limit: int) -> None:
    request = request_from("198.51.100.9")
    with override_settings(INGEST_RATE_PER_ADDRESS=f"{limit}/hour"):
        results = race(lambda: AddressRateThrottle().allow_request(request, APIView()), limit // THREADS + 4)
    assert results[True] == limit
    assert results[False] == THREADS * (limit // THREADS + 4) - limit


def test_it_admits_exactly_the_install_limit_to_16_racing_threads() -> None:
    request = request_from("198.51.100.10")
    digest = uuid.uuid4().hex
    with override_settings(INGEST_RATE_PER_INSTALL="60/hour"):
        results = race(lambda: InstallRateThrottle(digest).allow_request(request, APIView()), 8)
    assert results == Counter({True: 60, False: 68})


@pytest.mark.django_db(transaction=True)
@override_settings(INGEST_RATE_PER_ADDRESS="20/minute")
def test_it_answers_exactly_the_limit_before_429_over_http() -> None:
    def preview() -> int:
        response = Client().post(
            "/api/v1/contributions/preview", {}, content_type="application/json", REMOTE_ADDR="198.51.100.11"
        )
        return response.status_code

    results = race(preview, 3)
    assert results[429] == THREADS * 3 - 20
    assert sum(count for code, count in results.items() if code != 429) == 20


def test_it_says_how_long_to_wait_until_the_oldest_request_leaves_the_window() -> None:
    request = request_from("198.51.100.12")
    with override_settings(INGEST_RATE_PER_ADDRESS="2/minute"):
        throttle = AddressRateThrottle()
        assert throttle.allow_request(request, APIView()) and throttle.wait() is None
        assert throttle.allow_request(request, APIView())
        assert not throttle.allow_request(request, APIView())
        wait = throttle.wait()
    assert wait is not None and 58 <= wait <= 60


def test_it_reads_drf_rate_strings() -> None:
    assert parse_rate("60/hour") == (60, 3600)
    assert parse_rate("600/h") == (600, 3600)
    assert parse_rate("5/second") == (5, 1)
    assert parse_rate("3/day") == (3, 86400)


@pytest.mark.skipif(not settings.REDIS_URL, reason="the counters are in Redis only with REDIS_URL")
def test_it_keeps_the_counters_under_a_keyed_hash_of_the_address() -> None:
    AddressRateThrottle().allow_request(request_from("198.51.100.13"), APIView())
    client = redis.Redis.from_url(settings.REDIS_URL)
    keys = [key for key in client.keys("throttle_address_*") if isinstance(key, bytes)]
    assert len(keys) == 1 and len(keys[0].removeprefix(b"throttle_address_")) == 64
    assert b"198.51.100.13" not in b"".join(bytes(client.dump(key) or b"") for key in keys)  # type: ignore[arg-type]


@pytest.fixture
def own_redis() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A redis-server of this test's own on a free port, to stop without touching the shared one."""
    with OwnRedis() as server:
        yield server.url, server.process


def test_it_fails_closed_with_503_when_redis_goes_down_between_requests(own_redis) -> None:  # type: ignore[no-untyped-def]
    url, server = own_redis
    request = request_from("198.51.100.14")
    caches = {"default": {"BACKEND": "core.redis_cache.FactoryRedisCache", "LOCATION": url}}
    with override_settings(CACHES=caches, INGEST_RATE_PER_ADDRESS="5/minute"):
        assert AddressRateThrottle().allow_request(request, APIView())  # a pooled connection now exists
        server.terminate()
        server.wait()
        with pytest.raises(ThrottleUnavailableError) as refused:
            AddressRateThrottle().allow_request(request, APIView())
    assert refused.value.status_code == 503 and refused.value.wait == 60


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("2001:db8:7:9::1", "2001:db8:7:9:ffff:1234:abcd:2"),  # two addresses of one /64
        ("::ffff:198.51.100.14", "198.51.100.14"),  # an IPv4-mapped IPv6 address is that IPv4 address
    ],
)
def test_it_counts_one_ipv6_64_and_a_mapped_ipv4_address_under_one_counter(first: str, second: str) -> None:
    with override_settings(INGEST_RATE_PER_ADDRESS="2/minute"):
        assert AddressRateThrottle().allow_request(request_from(first), APIView())
        assert AddressRateThrottle().allow_request(request_from(second), APIView())
        assert not AddressRateThrottle().allow_request(request_from(first), APIView())
        assert not AddressRateThrottle().allow_request(request_from(second), APIView())


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("2001:db8:7:9::1", "2001:db8:7:a::1"),  # neighbouring /64s are different subscribers
        ("198.51.100.15", "198.51.100.16"),  # IPv4 stays exact
    ],
)
def test_it_keeps_separate_counters_for_other_64s_and_other_ipv4_addresses(first: str, second: str) -> None:
    with override_settings(INGEST_RATE_PER_ADDRESS="1/minute"):
        assert AddressRateThrottle().allow_request(request_from(first), APIView())
        assert AddressRateThrottle().allow_request(request_from(second), APIView())
        assert not AddressRateThrottle().allow_request(request_from(first), APIView())
