"""One error shape for the whole API: {"error": one sentence, "errors": [...]}.

Public clients never see a stack trace; a sentence and, where rows are at fault,
the row and column.
"""

import logging
from typing import Any

from django.db import InterfaceError, OperationalError
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

logger = logging.getLogger(__name__)


# How long a client should wait before trying again when the database is out of reach.
DATABASE_RETRY_SECONDS = 30


class ContractErrorSerializer(serializers.Serializer[Any]):
    row = serializers.IntegerField(allow_null=True, help_text="0-based index into rows; null for the envelope.")
    col = serializers.CharField(allow_null=True, help_text="Contract column or envelope key at fault.")
    message = serializers.CharField(help_text="What the rule wants; never the rejected value.")


# The shape in the OpenAPI schema. Built inline: a declared field named `errors` would shadow Serializer.errors.
ErrorSerializer = inline_serializer(
    name="Error",
    fields={
        "error": serializers.CharField(help_text="One sentence a client can show."),
        "errors": ContractErrorSerializer(many=True),
    },
)
# Every 429 and 503 of the API says when to try again.
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    int,
    location=OpenApiParameter.HEADER,
    response=[429, 503],
    required=True,
    description="Seconds to wait before sending again.",
)


def error_body(message: str, errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The API's one error shape: a sentence, and the rows and columns at fault (none for most errors)."""
    return {"error": message, "errors": errors or []}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, OperationalError | InterfaceError):
        # The database is out of reach (restarting, connections cut). A resend is safe: rows are keyed.
        logger.warning("the database is unreachable: %s", type(exc).__name__)
        set_rollback()
        return api_error(
            "The service cannot reach its database right now. Try again shortly: sending the same rows again is safe.",
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            retry_after=DATABASE_RETRY_SECONDS,
        )
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.Throttled):
        wait = int(getattr(exc, "wait", None) or 1)
        response.data = error_body(f"Too many requests; try again in {wait} seconds.")
        return response
    if isinstance(exc, exceptions.UnsupportedMediaType):
        response.data = error_body("The body must be JSON sent with content-type: application/json.")
        return response
    if isinstance(exc, exceptions.ParseError):
        # Our parser's own sentences are for the public; anything else a parser says is not.
        ours = str(exc.detail).startswith("The body")
        response.data = error_body(str(exc.detail) if ours else "The body is not valid JSON.")
        return response
    if isinstance(exc, exceptions.APIException):
        detail = exc.detail
        if isinstance(detail, dict) and "error" in detail:
            response.data = {"error": str(detail["error"]), "errors": detail.get("errors", [])}  # as raised
        else:
            sentence = str(detail) if not isinstance(detail, (dict, list)) else "The request is not valid."
            response.data = error_body(sentence)
    return response


def api_error(
    message: str,
    *,
    status_code: int = status.HTTP_400_BAD_REQUEST,
    errors: list[dict[str, Any]] | None = None,
    retry_after: int | None = None,
) -> Response:
    """An error answer in the API's one shape; `retry_after`: the seconds a 429 or 503 asks a client to wait."""
    response = Response(error_body(message, errors), status=status_code)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response
