"""GET /api/v1/pool.json: the published rankings, or a day window computed on demand."""

import datetime as dt
import hashlib
from typing import Any

from django.http import HttpResponse
from django.utils.http import quote_etag
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ingest.api import RETRY_AFTER
from ingest.serializers import ErrorSerializer
from leaderboard.selectors import EARLIEST_DAY, WindowBusy, latest_snapshot, scoped_document
from scoring.shapes import VIEWS

CACHE_CONTROL = "public, max-age=60"
# A day, or empty for no bound; the range moves with the clock, so it is said in words.
DAY_PARAMETER = {
    "anyOf": [
        {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        {"type": "string", "enum": [""]},
    ]
}
# The pool document's outline: its meta and the six views, each with its groups (scoring/shapes.py).
POOL_DOCUMENT = {
    "type": "object",
    "required": ["meta", "views"],
    "properties": {
        "meta": {"type": "object", "required": ["generated", "judged"]},
        "views": {
            "type": "object",
            "required": list(VIEWS),
            "properties": {
                view: {
                    "type": "object",
                    "required": ["groups", "pool", "span"],
                    "properties": {"groups": {"type": "array", "items": {"type": "object", "required": ["label"]}}},
                }
                for view in VIEWS
            },
        },
    },
}
DAY_RANGE = f"YYYY-MM-DD from {EARLIEST_DAY.isoformat()} to tomorrow (UTC); since no later than until"


class ScopeError(ValueError):
    pass


def parse_day(name: str, raw: str | None, *, today: dt.date) -> dt.date | None:
    if raw is None or raw == "":
        return None
    try:
        day = dt.date.fromisoformat(raw)
    except ValueError as exc:
        raise ScopeError(f"{name} must be a date written YYYY-MM-DD.") from exc
    if len(raw) != 10:
        raise ScopeError(f"{name} must be a date written YYYY-MM-DD.")
    if not EARLIEST_DAY <= day <= today + dt.timedelta(days=1):
        raise ScopeError(f"{name} must lie between {EARLIEST_DAY} and tomorrow.")
    return day


def parse_scope(params: Any, *, today: dt.date) -> tuple[dt.date | None, dt.date | None]:
    """The since/until window of a request; ScopeError names the parameter at fault."""
    if set(params) - {"since", "until"}:
        raise ScopeError("Unknown parameter: only since and until are accepted.")
    since = parse_day("since", params.get("since"), today=today)
    until = parse_day("until", params.get("until"), today=today)
    if since is not None and until is not None and since > until:
        raise ScopeError("since must not be after until.")
    return since, until


class PoolApi(APIView):
    """The pool document: meta plus the six views, shaped like the published pool.json."""

    @extend_schema(
        parameters=[
            OpenApiParameter("since", DAY_PARAMETER, description=f"First day in scope (inclusive), {DAY_RANGE}."),
            OpenApiParameter("until", DAY_PARAMETER, description=f"Last day in scope (inclusive), {DAY_RANGE}."),
            RETRY_AFTER,
        ],
        responses={
            200: OpenApiResponse(POOL_DOCUMENT, description="The pool document: meta and the six views."),
            304: OpenApiResponse(None, description="Not modified since the ETag sent in If-None-Match."),
            400: OpenApiResponse(ErrorSerializer, description="A parameter is not a day in range, or is unknown."),
            503: OpenApiResponse(
                ErrorSerializer, description="Nothing published yet, or another window is being computed; Retry-After."
            ),
        },
    )
    def get(self, request: Request) -> Response | HttpResponse:
        try:
            since, until = parse_scope(request.query_params, today=dt.datetime.now(dt.UTC).date())
        except ScopeError as exc:
            return Response({"error": str(exc), "errors": []}, status=400)
        snapshot = latest_snapshot()
        if snapshot is None:
            response = Response({"error": "No ranking has been published yet.", "errors": []}, status=503)
            response["Retry-After"] = "60"
            return response
        etag = quote_etag(hashlib.sha256(f"{snapshot.id}:{since}:{until}".encode()).hexdigest()[:32])
        if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
            not_modified = HttpResponse(status=304)
            not_modified["ETag"] = etag
            not_modified["Cache-Control"] = CACHE_CONTROL
            return not_modified
        try:
            document = scoped_document(since=since, until=until, snapshot=snapshot)
        except WindowBusy:
            busy = Response({"error": "Another day window is being computed; try again shortly.", "errors": []}, 503)
            busy["Retry-After"] = "5"
            return busy
        response = Response(document)
        response["ETag"] = etag
        response["Cache-Control"] = CACHE_CONTROL
        return response
