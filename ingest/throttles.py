"""Request rates per install and per client address.

Both are keyed by keyed hashes (HMAC-SHA256 with the install-hash key): the cache that
holds the counters never holds an install id or an address.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from redis.exceptions import RedisError
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView


def keyed_digest(purpose: str, value: str) -> str:
    key = settings.INSTALL_HASH_KEY.encode()
    return hmac.new(key, f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()


def client_address(request: Request) -> str:
    """The peer address; behind the TLS proxy, the address that proxy saw (the last forwarded hop)."""
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return str(request.META.get("REMOTE_ADDR", ""))


class ThrottleUnavailableError(APIException):
    """The counters cannot be read: answered 503 with Retry-After, in the API's error shape."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The service cannot take contributions right now; try again in a minute."
    default_code = "throttle_unavailable"
    # DRF's exception handler sends an exception's `wait` as the Retry-After header.
    wait = 60


class FailClosedRateThrottle(SimpleRateThrottle):
    """A rate throttle that refuses (503) rather than lets a request through unmetered when its cache is down."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        try:
            return super().allow_request(request, view)
        except RedisError as unreachable:
            raise ThrottleUnavailableError from unreachable


class AddressRateThrottle(FailClosedRateThrottle):
    """INGEST_RATE_PER_ADDRESS requests per client address (read per request, so tests can change it)."""

    scope = "address"

    def get_rate(self) -> str:
        return str(settings.INGEST_RATE_PER_ADDRESS)

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": keyed_digest("address", client_address(request))}


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

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.install_digest}
