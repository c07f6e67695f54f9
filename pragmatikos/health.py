"""GET /healthz: whether this process can reach the database and Redis, and how old the newest snapshot is.

For a proxy or an orchestrator asking every few seconds, so it costs one query and one PING. It is
answered by a middleware in front of all others: the health check of a container asks on the
app's own address (Host 127.0.0.1, plain HTTP), which host validation would refuse, and it must
never be cached, throttled or redirected.

200 when everything it uses is reachable, 503 naming what is down otherwise (with Retry-After).
The snapshot's age is reported, not judged: an unchanged pool publishes nothing new for days.
Without REDIS_URL (the embedded default) Redis is "not used".
"""

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from redis.exceptions import RedisError

from core import redis_breaker
from core.errors import error_body
from core.times import iso_z
from leaderboard.models import Snapshot

log = logging.getLogger(__name__)

PATH = "/healthz"
RETRY_SECONDS = 10


def redis_state() -> str:
    if not settings.REDIS_URL:
        return "not used"
    try:
        # The process's one client factory (REDIS_TIMEOUT), but never its breaker: the check asks every time.
        redis_breaker.client(settings.REDIS_URL).ping()
    except (RedisError, OSError):
        return "down"
    return "ok"


def database_state() -> tuple[str, dict[str, Any] | None]:
    """("ok", the newest snapshot's id and age, or None before the first) or ("down", None)."""
    try:
        newest = Snapshot.objects.order_by("-id").values_list("id", "created_at").first()
    except DatabaseError:
        connection.close()  # a broken connection is not handed to the next request
        return "down", None
    if newest is None:
        return "ok", None
    snapshot_id, created_at = newest
    age = (timezone.now() - created_at).total_seconds()
    return "ok", {"id": snapshot_id, "created_at": iso_z(created_at), "age_seconds": round(age)}


def health() -> tuple[int, dict[str, Any]]:
    database, snapshot = database_state()
    cache = redis_state()
    down = [name for name, state in (("database", database), ("redis", cache)) if state == "down"]
    body: dict[str, Any] = {"status": "down" if down else "ok", "database": database, "redis": cache}
    body["snapshot"] = snapshot
    if down:
        body["error"] = f"{' and '.join(down)} unreachable."
    return (503 if down else 200), body


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path != PATH:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            refused = JsonResponse(error_body("GET or HEAD only."), status=405)
            refused["Allow"] = "GET, HEAD"
            return refused
        status, body = health()
        if status != 200:
            log.warning("health: %s", body["error"])
        response = JsonResponse(body, status=status)
        response["Cache-Control"] = "no-store"
        if status == 503:
            response["Retry-After"] = str(RETRY_SECONDS)
        return response
