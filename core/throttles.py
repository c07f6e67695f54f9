"""Request rates per install and per client address.

Both are keyed by keyed hashes (HMAC-SHA256 with the install-hash key): the cache that
holds the counters never holds an install id or an address.

Each check is one atomic step in Redis (a Lua sliding window over the last period), so
concurrent requests cannot all read "one left" and all pass: exactly the limit is
admitted however many arrive at once. DRF's own throttle reads, then writes the history,
and over-admits under concurrency.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import uuid

import redis
from django.conf import settings
from django.http import HttpRequest
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from core import redis_breaker
from core.backend import in_process_counts
from core.keys import keyed_digest
from core.redis_breaker import RedisDown


def client_address(request: Request) -> str:
    """The address a client is counted under: the peer's, or behind the TLS proxy the one that proxy saw
    (the last forwarded hop), as counted_address gives it."""
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return counted_address(hops[-1])
    return counted_address(str(request.META.get("REMOTE_ADDR", "")))


# One IPv6 subscriber is usually given a whole /64 and picks addresses in it at will.
IPV6_COUNTED_PREFIX = 64


def counted_address(address: str) -> str:
    """An IPv4 address as it is; an IPv6 address as its /64 network, or as the IPv4 address it maps
    (::ffff:a.b.c.d); anything unparseable as it is."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_COUNTED_PREFIX), strict=False))
    return str(parsed)


class ThrottleUnavailableError(APIException):
    """The counters cannot be read: answered 503 with Retry-After, in the API's error shape."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The service cannot take contributions right now; try again in a minute."
    default_code = "throttle_unavailable"
    # DRF's exception handler sends an exception's `wait` as the Retry-After header.
    wait = 60


# Drop requests older than the window, count the rest, record this one only if under the
# limit; answers [admitted, milliseconds until the oldest leaves the window]. Redis's own
# clock, so every web process agrees on the window.
SLIDING_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
"""

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """A DRF rate string as (requests, seconds): "60/hour" is (60, 3600); the period's first letter counts."""
    count, period = rate.split("/")
    return int(count), PERIODS[period.strip()[0]]


def _counter_redis() -> redis.Redis | None:
    """The Redis of the default cache (where the counters live), or None without one."""
    config = settings.CACHES["default"]
    if not str(config["BACKEND"]).endswith("RedisCache"):
        return None
    location: str | list[str] = config["LOCATION"]
    # Short timeouts and the process's one breaker: a hung Redis costs one request one timeout, then 503s at once.
    return redis_breaker.client(location if isinstance(location, str) else location[0])


def admit(scope: str, digest: str, rate: str, *, counted_here_without_redis: bool = False) -> tuple[bool, int]:
    """Count one request of `digest` against `rate` ("60/hour") in `scope`: (admitted, seconds to wait if not).

    Exact under concurrency: one Lua script checks and counts in a single step. When the counters (Redis)
    cannot be reached it raises ThrottleUnavailableError, or, with `counted_here_without_redis` (work that
    may go on without Redis but must stay bounded), counts against the same rate in this process alone.
    """
    limit, seconds = parse_rate(rate)
    key = f"throttle_{scope}_{digest}"
    client = _counter_redis()
    if client is None:
        admitted, wait = in_process_counts.admit(key, limit, seconds)
    else:
        try:
            admitted_flag, wait_ms = redis_breaker.guarded(
                lambda: client.eval(SLIDING_WINDOW, 1, key, limit, seconds * 1000, uuid.uuid4().hex)
            )
            admitted, wait = bool(admitted_flag), int(wait_ms) / 1000
        except RedisDown as unreachable:
            if not counted_here_without_redis:
                raise ThrottleUnavailableError from unreachable
            admitted, wait = in_process_counts.admit(key, limit, seconds)
    return admitted, 0 if admitted else max(1, math.ceil(wait))


class FailClosedRateThrottle(BaseThrottle):
    """An exact sliding-window rate throttle that refuses (503) rather than lets a request through
    unmetered when its Redis is down."""

    scope: str

    def __init__(self) -> None:
        self.wait_seconds: float | None = None

    def get_rate(self) -> str:
        raise NotImplementedError

    def get_ident_digest(self, request: Request) -> str:
        raise NotImplementedError

    def allow_request(self, request: Request, view: APIView) -> bool:
        admitted, wait = admit(self.scope, self.get_ident_digest(request), self.get_rate())
        self.wait_seconds = None if admitted else wait
        return admitted

    def wait(self) -> float | None:
        return self.wait_seconds


class AddressRateThrottle(FailClosedRateThrottle):
    """INGEST_RATE_PER_ADDRESS requests per client address (read per request, so tests can change it)."""

    scope = "address"

    def get_rate(self) -> str:
        return str(settings.INGEST_RATE_PER_ADDRESS)

    def get_ident_digest(self, request: Request) -> str:
        return address_digest(request)


def address_digest(request: Request | HttpRequest) -> str:
    """The client's address as the keyed hash its counters are kept under (never the address itself)."""
    return keyed_digest("address", client_address(request))  # type: ignore[arg-type]  # reads only request.META


def address_wait(request: HttpRequest) -> int | None:
    """One more request from this address against INGEST_RATE_PER_ADDRESS, for a plain form as for the API:
    0 when it is admitted, else the seconds to wait; None when the counters cannot be read."""
    throttle = AddressRateThrottle()
    try:
        admitted = throttle.allow_request(request, None)  # type: ignore[arg-type]  # reads only request.META
    except ThrottleUnavailableError:
        return None
    return 0 if admitted else max(1, math.ceil(throttle.wait() or 1))


class InstallRateThrottle(FailClosedRateThrottle):
    """INGEST_RATE_PER_INSTALL contribution requests per install.

    Checked by the view once the body is parsed, since the install is in the body.
    """

    scope = "install"

    def __init__(self, install_digest: str) -> None:
        self.install_digest = install_digest
        super().__init__()

    def get_rate(self) -> str:
        return str(settings.INGEST_RATE_PER_INSTALL)

    def get_ident_digest(self, request: Request) -> str:
        return self.install_digest


class BodiesInFlightError(APIException):
    """This process holds as many bytes of bodies as it may: answered 503 with Retry-After before the body is read."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The service is taking other large contributions right now; try again in a few seconds."
    default_code = "bodies_in_flight"
    wait = 10


# A body this large is followed by a trim of the process's freed memory (core.memory) once its request ends.
LARGE_BODY_BYTES = 1024 * 1024


class BodyBudget:
    """The bytes of request bodies one process holds at once (INGEST_BODY_BYTES_IN_FLIGHT), every body counted.

    A parsed body costs several times its bytes in Python objects until its request ends (ingest.bodies
    bounds how many), so the sum is what bounds a process's memory when bodies arrive together: small
    ones count too, or sixteen threads of 1 MiB bodies would go unmetered. One body is always admitted
    when none is held, so the largest body the cap allows always gets in.

    A body larger than the proxy buffers (INGEST_PROXY_BUFFER_BYTES) reaches the app while it is still
    arriving, so its thread waits on the sender: at most INGEST_STREAMED_BODIES of those at once, or a
    few slow uploads would hold every thread. A refused body is never read (gunicorn drops the connection).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.held = 0
        self.streamed = 0

    def take(self, size: int) -> bool:
        streamed = size > settings.INGEST_PROXY_BUFFER_BYTES
        with self._lock:
            if self.held and self.held + size > settings.INGEST_BODY_BYTES_IN_FLIGHT:
                return False
            if streamed and self.streamed >= settings.INGEST_STREAMED_BODIES:
                return False
            self.held += size
            self.streamed += streamed
            return True

    def give_back(self, size: int) -> None:
        with self._lock:
            self.held -= size
            self.streamed -= size > settings.INGEST_PROXY_BUFFER_BYTES


body_budget = BodyBudget()
