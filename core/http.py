"""Small helpers every page view uses (and the lab's): bounded query values and the site's 404 page."""

from typing import Final

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

# Query values are capped before use: a label is at most 300 characters (GroupScore.label).
MAX_PARAM_LENGTH: Final = 300


class NotFound(Exception):
    """A page that answers the site's 404 page with this message (page_cache.cached_response renders it)."""


def param(request: HttpRequest, name: str, default: str = "") -> str:
    value = request.GET.get(name, default)
    return value[:MAX_PARAM_LENGTH] if isinstance(value, str) else default


def not_found_page(message: str) -> HttpResponse:
    return HttpResponse(render_to_string("404.html", {"message": message}), status=404)
