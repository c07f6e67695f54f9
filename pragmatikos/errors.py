"""One error shape for the whole API: {"error": one sentence, "errors": [...]}.

Public clients never see a stack trace; a sentence and, where rows are at fault,
the row and column.
"""

from typing import Any

from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
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
        response.data = {"error": "The body is not valid JSON.", "errors": []}
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
