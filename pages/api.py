"""GET /api/v1/pool.json: the published rankings, or a day window computed on demand; kept per snapshot and
window like the pages (core.page_cache)."""

from datetime import date

from django.http import HttpResponse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from pragmatikos_contract.values import TOKEN_RE
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import RETRY_AFTER, ErrorSerializer, api_error
from core.page_cache import cached_response
from core.throttles import address_digest
from ingest.contract_rules import FIRST_DAY
from leaderboard.published import published_snapshot, serving_snapshot
from leaderboard.windows import (
    WindowBusy,
    WindowError,
    WindowLimited,
    from_snapshot,
    scoped_document,
)
from pages.windowed import read_days, read_harness
from scoring.shapes import VIEWS

# A day, or empty for no bound; the range moves with the clock, so it is said in words.
DAY_PARAMETER = {
    "anyOf": [
        {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        {"type": "string", "enum": [""]},
    ]
}
# A harness name as the contract spells one, or empty for every harness; which names the pool has is in meta.
HARNESS_PARAMETER = {
    "anyOf": [
        {"type": "string", "pattern": f"^{TOKEN_RE.pattern}$"},
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
                    "required": ["groups", "pool", "span", "scale"],
                    "properties": {
                        "groups": {"type": "array", "items": {"type": "object", "required": ["label"]}},
                        # What a client needs to score its own group on this pool (docs/api.md, "scale").
                        "scale": {
                            "type": "object",
                            "required": ["axes", "tiers", "evidenceK", "minJudged", "span", "imputedTier"],
                        },
                    },
                }
                for view in VIEWS
            },
        },
    },
}
DAY_RANGE = f"YYYY-MM-DD from {FIRST_DAY.isoformat()} to tomorrow (UTC); since no later than until"


class PoolApi(APIView):
    """The pool document: meta plus the six views, shaped like the published pool.json."""

    @extend_schema(
        operation_id="pool",
        summary="The pool document: the published rankings",
        parameters=[
            OpenApiParameter("since", DAY_PARAMETER, description=f"First day in scope (inclusive), {DAY_RANGE}."),
            OpenApiParameter("until", DAY_PARAMETER, description=f"Last day in scope (inclusive), {DAY_RANGE}."),
            OpenApiParameter(
                "harness",
                HARNESS_PARAMETER,
                description="Only the cycles of this harness, one of meta.harnesses (400 for any other name), "
                "ranked by the same method; combinable with since and until.",
            ),
            RETRY_AFTER,
        ],
        responses={
            200: OpenApiResponse(POOL_DOCUMENT, description="The pool document: meta and the six views."),
            304: OpenApiResponse(None, description="Not modified since the ETag sent in If-None-Match."),
            400: OpenApiResponse(
                ErrorSerializer, description="A parameter is not a day in range or a harness of the pool, or unknown."
            ),
            429: OpenApiResponse(
                ErrorSerializer, description="Too many new windows from this address (WINDOW_RATE_PER_ADDRESS)."
            ),
            503: OpenApiResponse(
                ErrorSerializer, description="Nothing published yet, or another window is being computed; Retry-After."
            ),
        },
    )
    def get(self, request: Request) -> Response | HttpResponse:
        try:
            if set(request.query_params) - {"since", "until", "harness"}:
                raise WindowError("Unknown parameter: only since, until and harness are accepted.")
            since, until = read_days(
                request.query_params.get("since"), request.query_params.get("until"), today=timezone.now().date()
            )
            harness = read_harness(request.query_params.get("harness"))
        except WindowError as exc:
            return api_error(str(exc))
        generation, snapshot_id = serving_snapshot()
        if snapshot_id == 0:
            return nothing_published()
        # Kept per snapshot and window like the pages: a second request builds nothing.
        return cached_response(
            request._request,
            "pool.json",
            (since, until, harness),
            lambda: pool_document(request, snapshot_id, since, until, harness),
            generation=generation,
            snapshot_id=snapshot_id,
            content_type=JSON,
        )


JSON = "application/json"


def nothing_published() -> Response:
    return api_error("No ranking has been published yet.", status_code=503, retry_after=60)


def pool_document(
    request: Request, snapshot_id: int, since: date | None, until: date | None, harness: str | None
) -> HttpResponse:
    """The pool document of one snapshot in a window, as JSON; an error answer (never kept) when it cannot be."""
    snapshot = published_snapshot(snapshot_id)
    if snapshot is None:  # of an older document version: the next recompute replaces it
        return nothing_published()
    requester = address_digest(request)
    try:
        document = scoped_document(since=since, until=until, snapshot=snapshot, requester=requester, harness=harness)
    except WindowLimited as limited:
        return api_error(
            f"Too many new windows from this address; try again in {limited.retry_after} seconds.",
            status_code=429,
            retry_after=limited.retry_after,
        )
    except WindowBusy as busy:
        busy_sentence = "Another day window is being computed; try again shortly."
        return api_error(busy_sentence, status_code=503, retry_after=busy.retry_after)
    except WindowError as exc:  # a harness the pool does not show
        return api_error(str(exc))
    if document is None:
        return nothing_published()
    response = HttpResponse(JSONRenderer().render(document), content_type=JSON)
    if not from_snapshot(document, snapshot_id):
        # An earlier snapshot's window while this one's is warmed: not kept, so the next request finds it.
        patch_cache_control(response, no_cache=True)
    return response
