"""The keys the shared cache (the tests' own Redis database) holds, read from Redis itself."""

import redis
from django.conf import settings


def stored_keys(pattern: str = "*") -> set[str]:
    """Every key of the default cache matching `pattern` (a Redis glob, the cache's own prefix included)."""
    location = settings.CACHES["default"]["LOCATION"]
    client = redis.Redis.from_url(location if isinstance(location, str) else next(iter(location)))
    return {key.decode() for key in client.scan_iter(match=pattern, count=1000)}
