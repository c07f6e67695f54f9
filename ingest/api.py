"""The ingest API: one thin view per operation; the rules are in ingest.contract, the writes in ingest.services."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiRequest, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.collector import collector_paused
from core.errors import RETRY_AFTER, ErrorSerializer, api_error, error_body
from core.memory import return_freed_memory
from core.throttles import (
    LARGE_BODY_BYTES,
    AddressRateThrottle,
    BodiesInFlightError,
    InstallRateThrottle,
    body_budget,
)
from ingest import openapi, serializers
from ingest.bodies import install_as_sent, refuse_costly_body, release_body
from ingest.columns import SCHEMA_3_COLUMNS
from ingest.contract import (
    MAX_ERRORS,
    ContractError,
    Envelope,
    RowErrors,
    Validation,
    parse_install,
    validate_envelope,
)
from ingest.hooks import newest_snapshot_id
from ingest.models import install_hash
from ingest.selectors import install_counts, pool_counts
from ingest.services import InstallRetractedError, contribute, preview, retract

MAX_ERRORS_LISTED = MAX_ERRORS
RETRACTED_SENTENCE = "This install has retracted its contributions; nothing more is accepted from it."

BODY_ERROR_RESPONSES = {
    400: OpenApiResponse(ErrorSerializer, description="The body breaks the contract; nothing stored."),
    411: OpenApiResponse(ErrorSerializer, description="The body was sent without a Content-Length."),
    413: OpenApiResponse(
        ErrorSerializer,
        description=(
            f"Over {settings.INGEST_MAX_BODY_BYTES // 2**20} MiB, over {settings.INGEST_MAX_ROWS:,} rows, or more "
            "values than that many rows can hold."
        ),
    ),
    415: OpenApiResponse(ErrorSerializer, description="The body is not sent as application/json."),
    429: OpenApiResponse(ErrorSerializer, description="Throttled; see the Retry-After header."),
    503: OpenApiResponse(
        ErrorSerializer,
        description=(
            "The throttle's counters or the database are unreachable, or the service is holding as many bytes of "
            "bodies as it may at once; see the Retry-After header."
        ),
    ),
}
ERROR_RESPONSES = {
    **BODY_ERROR_RESPONSES,
    410: OpenApiResponse(ErrorSerializer, description="The install has retracted."),
}

# A schema-3 row as the OpenCode plugin writes it: the example the API docs show and the fuzzer starts from.
EXAMPLE_ROW = [
    "9f86d081884c7d65", "2026-09-18", "claude-opus-4.7", "anthropic", 2,
    "gpt-5.1", "openai", "claude-opus-4.7", "anthropic",
    3, 41, 6, 1, 1, 0.8312, 1, 0.75, 1, 0, 4.2, 0,
    "high", "high", "default", "opencode", "1.0.150",
]  # fmt: skip
ENVELOPE_REQUEST = OpenApiRequest(
    openapi.ENVELOPE_BODY,
    examples=[
        OpenApiExample(
            "schema 3",
            value={
                "schema": 3,
                "extractor": "26.9.0",
                "install": "3f2b8c1e-6a4d-4f0e-9b7a-2c5d8e1f4a6b",
                "generated": "2026-09-19T00:00:00.000Z",
                "cols": list(SCHEMA_3_COLUMNS),
                "rows": [EXAMPLE_ROW],
            },
        )
    ],
)


def _reject_constant(name: str) -> Any:
    raise ValueError("NaN and Infinity are not JSON")


class DuplicateKeyError(ValueError):
    """An object names a key twice: which one counts is up to the parser, so neither does."""


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise DuplicateKeyError
    return found


class StrictJSONParser(BaseParser):
    """JSON without NaN, Infinity or a key twice in one object, parsed from the bytes in one call, once they
    are known to hold no more values and objects than a body worth parsing can (ingest.bodies)."""

    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        raw = stream.read()
        refuse_costly_body(raw)
        try:
            return json.loads(raw, parse_constant=_reject_constant, object_pairs_hook=_object_without_repeats)
        except DuplicateKeyError as exc:
            raise ParseError("The body is not valid JSON for this API: an object names a key twice.") from exc
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise ParseError("The body is not valid JSON.") from exc


def _refuse_unreadable_body(request: Request) -> Response | None:
    """415 unless JSON; 413 when the declared or the actual body is over the cap, before parsing."""
    media_type = request.content_type.split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        return api_error(
            "The body must be JSON sent with content-type: application/json.",
            status_code=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
        )
    if not request.META.get("CONTENT_LENGTH"):
        # A body sent without its length (chunked): WSGI servers hand such a body over as empty.
        return api_error(
            "Send the body with a Content-Length header; bodies of unknown length are not read.",
            status_code=status.HTTP_411_LENGTH_REQUIRED,
        )
    limit = settings.INGEST_MAX_BODY_BYTES
    too_large = api_error(
        f"The body is larger than {limit} bytes; send fewer rows per request.",
        status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    )
    if declared_length(request) > limit:
        return too_large
    if len(request._request.body) > limit:
        return too_large
    return None


def declared_length(request: HttpRequest | Request) -> int:
    """The body's Content-Length; 0 when it has none or an unreadable one."""
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def _listed(errors: list[ContractError]) -> list[dict[str, Any]]:
    return [error.as_dict() for error in errors[:MAX_ERRORS_LISTED]]


def _refuse_invalid(validation: Validation) -> Response:
    """400 (413 for too many rows) for a refused envelope, or for any bad row of an atomic request."""
    if validation.too_many_rows:
        return api_error(
            f"The request holds more than {settings.INGEST_MAX_ROWS} rows; send them in smaller batches.",
            status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    errors: list[ContractError] = validation.errors or validation.row_errors
    count = errors.total if isinstance(errors, RowErrors) else len(errors)
    sentence = "1 value breaks" if count == 1 else f"{count} values break"
    shown = "" if count <= MAX_ERRORS_LISTED else f" (the first {MAX_ERRORS_LISTED} are listed)"
    return api_error(f"{sentence} the contribution contract{shown}; nothing was stored.", errors=_listed(errors))


def _wants_atomic(request: Request) -> bool | None:
    """?atomic=1: any bad row refuses the whole request (cycle-record.md). None for a value that is neither."""
    return {"1": True, "0": False}.get(request.query_params.get("atomic", "0"))


ATOMIC_PARAMETER = OpenApiParameter(
    "atomic",
    str,
    enum=["0", "1"],
    description="1: refuse the whole request (400) when any row breaks a rule, instead of skipping that row.",
)


def _refuse_atomic_parameter() -> Response:
    return api_error(
        "The atomic parameter must be 1 or 0.", errors=[{"row": None, "col": "atomic", "message": "must be 1 or 0"}]
    )


def _checked_envelope(
    request: Request, *, now: datetime, before: Callable[[Request], None] | None = None
) -> tuple[Validation, Envelope] | Response:
    """The checks a contribution and its preview share: a readable JSON body, the atomic parameter, the contract.

    `before` runs once the body is read, before it is parsed (the install's throttle). Returns the
    validation and its envelope, or the answer that refuses the request.
    """
    refusal = _refuse_unreadable_body(request)
    if refusal is not None:
        return refusal
    atomic = _wants_atomic(request)
    if atomic is None:
        return _refuse_atomic_parameter()
    with collector_paused():  # while the body is parsed (on the first read of request.data) and checked
        if before is not None:
            before(request)
        validation = validate_envelope(request.data, now=now, max_rows=settings.INGEST_MAX_ROWS)
    if validation.envelope is None or (atomic and validation.skipped):
        return _refuse_invalid(validation)
    return validation, validation.envelope


def _skipped_rows(validation: Validation) -> dict[str, Any]:
    """What a 202 or a preview says about the rows left out."""
    return {"skipped": validation.skipped, "errors": _listed(validation.row_errors)}


class BodyApi(APIView):
    """An operation that reads a JSON body: strict JSON, throttled by address and by the process's budget of
    bodies before the body is read; the body, raw and parsed, dropped when the request ends."""

    parser_classes = (StrictJSONParser,)
    throttle_classes = (AddressRateThrottle,)
    body_admitted = True

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        # Held until the answer is made: the parsed rows live that long. A body declared over the cap is
        # refused (413) without being read, so it takes nothing.
        size = declared_length(request)
        size = size if size <= settings.INGEST_MAX_BODY_BYTES else 0
        self.body_admitted = body_budget.take(size)
        try:
            return super().dispatch(request, *args, **kwargs)
        finally:
            release_body(getattr(self, "request", None), request)
            if self.body_admitted:
                body_budget.give_back(size)
            if size >= LARGE_BODY_BYTES:
                return_freed_memory()

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # the address's rate first: a 429 is the truer answer
        if not self.body_admitted:
            raise BodiesInFlightError


def envelope_operation(*, operation_id: str, summary: str, description: str, answer: dict[int, Any]) -> Any:
    """The schema of an operation on a contribution envelope (it takes `atomic` and may skip rows)."""
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        parameters=[ATOMIC_PARAMETER, RETRY_AFTER],
        request={"application/json": ENVELOPE_REQUEST},
        responses={**answer, **ERROR_RESPONSES},
    )


class ContributeApi(BodyApi):
    install_counted: uuid.UUID | None = None  # the install counted against its rate before the body was parsed

    @envelope_operation(
        operation_id="contribute",
        summary="Contribute cycles",
        description=(
            "The contribution envelope of the contract (schemas 1, 2 and 3). A fault of the envelope refuses the "
            "request (400); a row that breaks a column rule or a privacy check is skipped and reported in the 202 "
            "(`skipped`, `errors`), unless `atomic=1` asks for all or nothing."
        ),
        answer={202: serializers.ContributionAcceptedSerializer},
    )
    def post(self, request: Request) -> Response:
        now = timezone.now()
        checked = _checked_envelope(request, now=now, before=self._throttle_install_as_sent)
        if isinstance(checked, Response):
            return checked
        validation, envelope = checked
        if envelope.install != self.install_counted:  # its key was written with escapes: found only now
            self._throttle_install(request, envelope.install)
        try:
            result = contribute(envelope=envelope, now=now, skipped=validation.skipped)
        except InstallRetractedError:
            return api_error(RETRACTED_SENTENCE, status_code=status.HTTP_410_GONE)
        body = {
            "accepted": result.accepted,
            "inserted": result.inserted,
            "updated": result.updated,
            "unchanged": result.unchanged,
            "snapshot": result.snapshot,
            **_skipped_rows(validation),
        }
        return Response(body, status=status.HTTP_202_ACCEPTED)

    def _throttle_install_as_sent(self, request: Request) -> None:
        """Count the request against the install its body names, before the body is parsed: an install over
        its rate costs no parse."""
        self.install_counted = install_as_sent(request._request.body)
        self._throttle_install(request, self.install_counted)

    def _throttle_install(self, request: Request, install: uuid.UUID | None) -> None:
        if install is None:
            return
        throttle = InstallRateThrottle(install_hash(install))
        if not throttle.allow_request(request, self):
            self.throttled(request, throttle.wait() or 1)


@extend_schema(exclude=True)  # the same operation as ContributeApi, at the path the OpenCode plugin posts to
class PluginContributeApi(ContributeApi):
    pass


class PreviewApi(BodyApi):
    @envelope_operation(
        operation_id="contribute_preview",
        summary="Check a contribution without storing it",
        description=(
            "The same checks as a contribution; answers the rows as they would be stored and the rows that would be "
            "skipped. Writes nothing."
        ),
        answer={200: serializers.PreviewSerializer},
    )
    def post(self, request: Request) -> Response:
        checked = _checked_envelope(request, now=timezone.now())
        if isinstance(checked, Response):
            return checked
        validation, envelope = checked
        if preview(envelope=envelope).retracted:
            return api_error(RETRACTED_SENTENCE, status_code=status.HTTP_410_GONE)
        body = {
            "accepted": len(envelope.rows),
            "schema": envelope.schema,
            "extractor": envelope.extractor,
            "generated": envelope.generated,
            "rows": envelope.row_dicts(),
            **_skipped_rows(validation),
        }
        return Response(body, status=status.HTTP_200_OK)


class RetractApi(BodyApi):
    @extend_schema(
        operation_id="contribute_retract",
        summary="Retract an install",
        description="Deletes every cycle of the install and refuses its later contributions (410). Idempotent.",
        request={"application/json": openapi.RETRACT_BODY},
        parameters=[RETRY_AFTER],
        responses={200: serializers.RetractedSerializer, **BODY_ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        install = _install_of(request)
        if isinstance(install, Response):
            return install
        deleted = retract(install=install, now=timezone.now())
        return Response({"deleted": deleted}, status=status.HTTP_200_OK)


def _install_of(request: Request) -> uuid.UUID | Response:
    """The install of a body that is exactly {"install": "<uuid>"}, or the answer that refuses the request."""
    refusal = _refuse_unreadable_body(request)
    if refusal is not None:
        return refusal
    data = request.data
    install = parse_install(data.get("install")) if isinstance(data, dict) and set(data) == {"install"} else None
    if install is None:
        return api_error(
            'The body must be {"install": "<uuid>"}.',
            errors=[{"row": None, "col": "install", "message": "must be a UUID"}],
        )
    return install


class InstallCountsApi(BodyApi):
    @extend_schema(
        operation_id="contribute_counts",
        summary="Count one install's cycles",
        description=(
            "How many cycles the service holds for the install in the body: stored, judged, and pending (sent while "
            "their ship window was open). Counts only; nothing is stored, and the install id travels in the body, "
            "never in the address. An install never seen counts 0; a retracted one is answered 410."
        ),
        request={"application/json": openapi.INSTALL_COUNTS_BODY},
        parameters=[RETRY_AFTER],
        responses={200: serializers.InstallCountsSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        install = _install_of(request)
        if isinstance(install, Response):
            return install
        counts = install_counts(install)
        if counts is None:
            return api_error(RETRACTED_SENTENCE, status_code=status.HTTP_410_GONE)
        body = {"stored": counts.stored, "judged": counts.judged, "pending": counts.pending}
        return Response(body, status=status.HTTP_200_OK)


class StatsApi(APIView):
    @extend_schema(
        operation_id="stats",
        summary="Public pool counts",
        parameters=[RETRY_AFTER],
        responses={200: serializers.StatsSerializer, 503: BODY_ERROR_RESPONSES[503]},
    )
    def get(self, request: Request) -> Response:
        counts = pool_counts()
        body = {
            "cycles": counts.cycles,
            "judged": counts.judged,
            "contributors": counts.contributors,
            "snapshot": newest_snapshot_id(),
            "generated": timezone.now(),
        }
        return Response(body)


def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Unknown paths under /api/v1/ answer in the API's JSON error shape, not the site's HTML page."""
    return JsonResponse(error_body("There is no such API endpoint."), status=status.HTTP_404_NOT_FOUND)
