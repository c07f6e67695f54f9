"""One error shape for the whole API: {"error": one sentence, "errors": [...]}.

Public clients never see a stack trace; a sentence and, where rows are at fault,
the row and column.
"""

import logging
from typing import Any

from django.db import InterfaceError, OperationalError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

logger = logging.getLogger(__name__)


# How long a client should wait before trying again when the database is out of reach.
DATABASE_RETRY_SECONDS = 30


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, OperationalError | InterfaceError):
        # The database is out of reach (restarting, connections cut). A resend is safe: rows are keyed.
        logger.warning("the database is unreachable: %s", type(exc).__name__)
        set_rollback()
        unavailable = Response(
            {
                "error": (
                    "The service cannot reach its database right now. "
                    "Try again shortly: sending the same rows again is safe."
                ),
                "errors": [],
            },
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
        unavailable["Retry-After"] = str(DATABASE_RETRY_SECONDS)
        return unavailable
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.Throttled):
        wait = int(getattr(exc, "wait", None) or 1)
        response.data = {"error": f"Too many requests; try again in {wait} seconds.", "errors": []}
        return response
    if isinstance(exc, exceptions.UnsupportedMediaType):
        response.data = {"error": "The body must be JSON sent with content-type: application/json.", "errors": []}
        return response
    if isinstance(exc, exceptions.ParseError):
        # Our parser's own sentences are for the public; anything else a parser says is not.
        ours = str(exc.detail).startswith("The body")
        response.data = {"error": str(exc.detail) if ours else "The body is not valid JSON.", "errors": []}
        return response
    if isinstance(exc, exceptions.APIException):
        detail = exc.detail
        if isinstance(detail, dict) and "error" in detail:
            response.data = {"error": str(detail["error"]), "errors": detail.get("errors", [])}
        else:
            sentence = str(detail) if not isinstance(detail, (dict, list)) else "The request is not valid."
            response.data = {"error": sentence, "errors": []}
    return response


def api_error(
    message: str, *, status_code: int = status.HTTP_400_BAD_REQUEST, errors: list[dict[str, Any]] | None = None
) -> Response:
    """An error answer in the API's one shape."""
    return Response({"error": message, "errors": errors or []}, status=status_code)
